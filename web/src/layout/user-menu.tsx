import { useMutation } from '@tanstack/react-query';
import { api } from '../api/client';
import { useResetSession, useSession } from '../api/session';
import { Link, useRouter } from '../router';

export function UserMenu({ current }: { current: boolean }) {
  const session = useSession();
  const reset = useResetSession();
  const { navigate } = useRouter();
  const signOut = useMutation({
    mutationFn: () => api.post('/auth/logout', {}),
    onSettled: async () => {
      await reset();
      navigate('/login', { replace: true });
    },
  });
  const user = session.data?.user;
  if (!user) return null;
  return (
    <div className="user-menu">
      <Link to="/account" className="nav-link" aria-current={current ? 'page' : undefined}>
        <span className="user-name">{user.name ?? user.email}</span>
        {user.name ? <span className="muted user-email">{user.email}</span> : null}
      </Link>
      <button
        type="button"
        className="btn btn-ghost btn-small"
        onClick={() => signOut.mutate()}
        disabled={signOut.isPending}
      >
        Sign out
      </button>
    </div>
  );
}
