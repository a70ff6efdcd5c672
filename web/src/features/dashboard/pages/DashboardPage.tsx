import { useAppSelector } from '@/app/hooks';
import { selectUser } from '@/lib/session';
import { StatCards } from '../components/StatCards';
import { UserTable } from '../components/UserTable';
import '@/components/forms.css';
import '../dashboard.css';

/** /dashboard (product.md §2): welcome, three figures, the user table. */
export function DashboardPage() {
  const user = useAppSelector(selectUser);
  const isAdmin = user?.role === 'admin';
  const name = user ? `${user.firstname} ${user.lastname}`.trim() : '';

  return (
    <div className="dashboard">
      <title>Dashboard · MediShare</title>
      <h1 className="page-title">
        {`Welcome, ${name}`}
        {isAdmin && ' (admin)'}
      </h1>
      <StatCards />
      <UserTable canDelete={isAdmin} selfId={user?.id} />
    </div>
  );
}
