import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type AnchorHTMLAttributes,
  type MouseEvent,
  type ReactNode,
} from 'react';

/**
 * A small router over the History API: the dashboard has a flat table of pages (routes.tsx), so
 * a path pattern with `:params` and a query string is all it needs. Every path here is relative
 * to /dashboard (the server answers index.html for any path below it).
 */
export const BASE = '/dashboard';

type Location = { path: string; search: URLSearchParams };

function current(): Location {
  const path = window.location.pathname.startsWith(BASE) ? window.location.pathname.slice(BASE.length) || '/' : '/';
  return { path: path.replace(/\/+$/, '') || '/', search: new URLSearchParams(window.location.search) };
}

type RouterValue = Location & { navigate: (to: string, options?: { replace?: boolean }) => void };
const RouterContext = createContext<RouterValue | null>(null);

export function RouterProvider({ children }: { children: ReactNode }) {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const onPop = () => setLocation(current());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string, options: { replace?: boolean } = {}) => {
    const url = to.startsWith('/') ? `${BASE}${to === '/' ? '/' : to}` : to;
    if (options.replace) window.history.replaceState(null, '', url);
    else window.history.pushState(null, '', url);
    setLocation(current());
    window.scrollTo(0, 0);
  }, []);
  const value = useMemo(() => ({ ...location, navigate }), [location, navigate]);
  return <RouterContext.Provider value={value}>{children}</RouterContext.Provider>;
}

export function useRouter(): RouterValue {
  const value = useContext(RouterContext);
  if (!value) throw new Error('useRouter outside RouterProvider');
  return value;
}

/** One query-string parameter as state: reading and writing it keeps the URL shareable. */
export function useSearchParam(name: string): [string, (value: string | null) => void] {
  const { search, path, navigate } = useRouter();
  const set = useCallback(
    (value: string | null) => {
      const next = new URLSearchParams(window.location.search);
      if (value === null || value === '') next.delete(name);
      else next.set(name, value);
      const qs = next.toString();
      navigate(`${path}${qs ? `?${qs}` : ''}`, { replace: true });
    },
    [name, path, navigate],
  );
  return [search.get(name) ?? '', set];
}

/** Matches `/emails/:id` against a path; the params, or null. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const segment = want[i]!;
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(got[i]!);
    else if (segment !== got[i]) return null;
  }
  return params;
}

/** An in-app link: a real <a href> (open in a new tab works), navigated without a reload. */
export function Link({
  to,
  children,
  ...rest
}: { to: string; children: ReactNode } & AnchorHTMLAttributes<HTMLAnchorElement>) {
  const { navigate } = useRouter();
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    rest.onClick?.(event);
    if (
      event.defaultPrevented ||
      event.button !== 0 ||
      event.metaKey ||
      event.ctrlKey ||
      event.shiftKey ||
      event.altKey
    )
      return;
    event.preventDefault();
    navigate(to);
  };
  return (
    <a {...rest} href={`${BASE}${to}`} onClick={onClick}>
      {children}
    </a>
  );
}
