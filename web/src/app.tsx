import { useQueryClient } from '@tanstack/react-query';
import { Suspense, useEffect } from 'react';
import { onSignedOut } from './api/client';
import { sessionKey, useSession } from './api/session';
import { Shell } from './layout/shell';
import { matchPath, useRouter } from './router';
import { ROUTES } from './routes';
import { Loading } from './ui/page';
import { PageBoundary } from './layout/page-boundary';
import { NotFound } from './layout/not-found';

/** Picks the page for the path, and sends people without a session to sign in (and back after). */
export function App() {
  const { path, search, navigate } = useRouter();
  const session = useSession();
  const client = useQueryClient();
  useEffect(() => onSignedOut(() => client.setQueryData(sessionKey, null)), [client]);

  const found = ROUTES.map((route) => ({ route, params: matchPath(route.path, path) })).find((m) => m.params);
  const signedIn = Boolean(session.data);

  useEffect(() => {
    if (session.isLoading) return;
    if (path === '/') navigate(signedIn ? '/emails' : '/login', { replace: true });
    else if (found && !found.route.public && !signedIn) {
      const next = `${path}${search.toString() ? `?${search}` : ''}`;
      navigate(`/login?next=${encodeURIComponent(next)}`, { replace: true });
    }
  }, [session.isLoading, signedIn, path, found, search, navigate]);

  if (session.isLoading) return <Loading label="Opening the dashboard…" />;
  if (!found)
    return signedIn ? (
      <Shell nav={null}>
        <NotFound />
      </Shell>
    ) : (
      <NotFound />
    );
  const { route, params } = found;
  const Page = route.page;
  const content = (
    <PageBoundary key={path}>
      <Suspense fallback={<Loading />}>
        <Page params={params!} />
      </Suspense>
    </PageBoundary>
  );
  if (route.public)
    return (
      <main className="public-main" id="main">
        {content}
      </main>
    );
  if (!signedIn) return <Loading />;
  return <Shell nav={route.nav ?? null}>{content}</Shell>;
}
