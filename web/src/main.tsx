import { notifyManager, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app';
import { ApiError } from './api/client';
import { RouterProvider } from './router';
import { ToastProvider } from './ui/toast';
import './ui/styles.css';

// Query and mutation changes reach components in a microtask, not the library's default
// setTimeout(0): React puts a controlled checkbox back to its prop at the end of the click, and
// with a timer between that and the optimistic (or pending) state the box showed as unclicked
// for a moment: a flicker for people, and a click that browser tests read as undone.
notifyManager.setScheduler(queueMicrotask);

const client = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 10_000,
      // A refusal (4xx) is an answer, not a glitch: only network failures and 5xx are retried.
      retry: (count, error) => count < 2 && (!(error instanceof ApiError) || error.status === 0 || error.status >= 500),
      refetchOnWindowFocus: false,
    },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <RouterProvider>
        <ToastProvider>
          <App />
        </ToastProvider>
      </RouterProvider>
    </QueryClientProvider>
  </StrictMode>,
);
