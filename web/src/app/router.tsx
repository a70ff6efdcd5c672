import { createBrowserRouter, type RouteObject } from 'react-router';
import { NotFound } from '@/components/NotFound';
import { AuditLogsPage } from '@/features/audit/pages/AuditLogsPage';
import { ForgotPasswordPage } from '@/features/auth/pages/ForgotPasswordPage';
import { LoginPage } from '@/features/auth/pages/LoginPage';
import { RegisterPage } from '@/features/auth/pages/RegisterPage';
import { ResetPasswordPage } from '@/features/auth/pages/ResetPasswordPage';
import { VerifyAccountPage } from '@/features/auth/pages/VerifyAccountPage';
import { AdminDashboardPage } from '@/features/dashboard/pages/AdminDashboardPage';
import { DashboardPage } from '@/features/dashboard/pages/DashboardPage';
import { UploadImagePage } from '@/features/images/pages/UploadImagePage';
import { LandingPage } from '@/features/landing/pages/LandingPage';
import { MessagesPage } from '@/features/messages/pages/MessagesPage';
import { UserProfilePage } from '@/features/profile/pages/UserProfilePage';
import { RolesPermissionsPage } from '@/features/roles/pages/RolesPermissionsPage';
import { SettingsPage } from '@/features/settings/pages/SettingsPage';
import { ShareImagePage } from '@/features/sharing/pages/ShareImagePage';
import { can, mayUseDashboard } from '@/lib/access';
import { AiAnalysisRoute } from './AiAnalysisRoute';
import { MfaEnrolmentGate } from './MfaEnrolmentGate';
import { ProfileRoute } from './ProfileRoute';
import { RequirePermission } from './RequirePermission';
import { RootLayout } from './RootLayout';
import { SessionGuard } from './SessionGuard';
import { AppShell } from './shell/AppShell';
import { ViewerRoute } from './ViewerRoute';
import { ViewImagesRoute } from './ViewImagesRoute';

/** Every route of product.md §2. */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      { path: '/', element: <LandingPage /> },
      { path: '/login', element: <LoginPage /> },
      { path: '/register', element: <RegisterPage /> },
      { path: '/verify-account', element: <VerifyAccountPage /> },
      { path: '/forgot-password', element: <ForgotPasswordPage /> },
      { path: '/reset-password', element: <ResetPasswordPage /> },
      { path: '/share-image', element: <ShareImagePage /> },
      {
        element: <SessionGuard />,
        children: [
          {
            element: <MfaEnrolmentGate />,
            children: [
              {
                element: <AppShell />,
                children: [
                  {
                    element: <RequirePermission allowed={mayUseDashboard} reason="The dashboard is for providers and administrators." />,
                    children: [{ path: '/dashboard', element: <DashboardPage /> }],
                  },
                  { path: '/profile', element: <ProfileRoute /> },
                  { path: '/user-profile/:id?', element: <UserProfilePage /> },
                  { path: '/upload', element: <UploadImagePage /> },
                  { path: '/view-images', element: <ViewImagesRoute /> },
                  { path: '/viewer/:id', element: <ViewerRoute /> },
                  { path: '/messages', element: <MessagesPage /> },
                  {
                    element: <RequirePermission allowed={(user) => can(user, 'audit:read')} reason="You may not read the audit log." />,
                    children: [{ path: '/audit-logs', element: <AuditLogsPage /> }],
                  },
                  {
                    element: <RequirePermission allowed={(user) => can(user, 'system:monitor')} />,
                    children: [{ path: '/admin-dashboard', element: <AdminDashboardPage /> }],
                  },
                  {
                    element: <RequirePermission allowed={(user) => can(user, 'settings:manage')} />,
                    children: [{ path: '/appsettings', element: <SettingsPage /> }],
                  },
                  {
                    element: <RequirePermission allowed={(user) => can(user, 'roles:read')} />,
                    children: [{ path: '/roles-permissions', element: <RolesPermissionsPage /> }],
                  },
                  { path: '/ai-analysis/:id?', element: <AiAnalysisRoute /> },
                ],
              },
            ],
          },
        ],
      },
      { path: '*', element: <NotFound /> },
    ],
  },
];

export function createAppRouter() {
  return createBrowserRouter(routes);
}

export type AppRouter = ReturnType<typeof createAppRouter>;
