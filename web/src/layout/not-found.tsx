import { Link } from '../router';
import { PageHeader } from '../ui/page';

export function NotFound() {
  return (
    <div className="not-found">
      <PageHeader title="Page not found" />
      <p>There is no dashboard page at this address.</p>
      <p>
        <Link to="/emails">Go to your emails</Link>
      </p>
    </div>
  );
}
