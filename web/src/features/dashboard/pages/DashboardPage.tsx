import { useAppSelector } from '@/app/hooks';
import { can } from '@/lib/access';
import { selectUser } from '@/lib/session';
import { StatCards } from '../components/StatCards';
import { UserTable } from '../components/UserTable';
import '@/components/forms.css';
import '../dashboard.css';

/** /dashboard (product.md §2): welcome, three figures, the user table. */
export function DashboardPage() {
  const user = useAppSelector(selectUser);
  const name = user ? `${user.firstname} ${user.lastname}`.trim() : '';

  return (
    <div className="dashboard">
      <title>Dashboard · MediShare</title>
      <h1 className="page-title">
        {`Welcome, ${name}`}
        {/* The role's name shown as product.md words it, not a rule of access. */}
        {user?.role === 'admin' && ' (admin)'}
      </h1>
      <StatCards />
      <UserTable canManage={can(user, 'users:manage')} selfId={user?.id} />
    </div>
  );
}
