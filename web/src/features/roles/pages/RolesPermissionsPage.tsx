import { ScrollRegion } from '@/components/ScrollRegion';
import { Spinner } from '@/components/Spinner';
import { describeLoadError } from '@/lib/api-client';
import { roleLabel } from '@/lib/format';
import { useListPermissionsQuery, useListRolesQuery } from '../api';
import '@/components/DataTable.css';
import '../roles.css';

/** /roles-permissions (admins): the roles, the permissions, and which role holds which. */
export function RolesPermissionsPage() {
  const roles = useListRolesQuery();
  const permissions = useListPermissionsQuery();
  const failed = roles.error ?? permissions.error;
  const roleList = roles.data;
  const permissionList = permissions.data;

  return (
    <div className="roles-page">
      <title>Roles and Permissions · MediShare</title>
      <h1 className="page-title">Roles and Permissions</h1>
      {!(roleList && permissionList) && !failed && <Spinner label="Loading roles and permissions…" />}
      {failed && (
        <p className="form-error" role="alert">
          {describeLoadError(failed)}
        </p>
      )}
      {roleList && permissionList && (
        <>
          <div className="roles-lists">
            <section className="card roles-card" aria-labelledby="roles-title">
              <h2 id="roles-title">Roles</h2>
              <ul className="roles-list">
                {roleList.map((role) => (
                  <li key={role.name}>
                    <span className="roles-list__name">{roleLabel(role.name)}</span> <code>{role.name}</code>
                  </li>
                ))}
              </ul>
            </section>
            <section className="card roles-card" aria-labelledby="permissions-title">
              <h2 id="permissions-title">Permissions</h2>
              <ul className="roles-list">
                {permissionList.map((permission) => (
                  <li key={permission.name}>
                    <code className="roles-list__name">{permission.name}</code>
                    <span className="roles-list__description">{permission.description}</span>
                  </li>
                ))}
              </ul>
            </section>
          </div>
          <section className="card data-table" aria-labelledby="matrix-title">
            <h2 id="matrix-title" className="data-table__title">
              Which role holds which permission
            </h2>
            <ScrollRegion label="Roles and their permissions">
              <table>
                <caption className="visually-hidden">Which role holds which permission</caption>
                <thead>
                  <tr>
                    <th scope="col">Permission</th>
                    {roleList.map((role) => (
                      <th key={role.name} scope="col">
                        {roleLabel(role.name)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {permissionList.map((permission) => (
                    <tr key={permission.name}>
                      <th scope="row">
                        <code>{permission.name}</code>
                      </th>
                      {roleList.map((role) => {
                        const holds = role.permissions.includes(permission.name);
                        return (
                          <td key={role.name} className="roles-matrix__cell">
                            <span aria-hidden="true">{holds ? '✓' : '–'}</span>
                            <span className="visually-hidden">{holds ? 'Yes' : 'No'}</span>
                          </td>
                        );
                      })}
                    </tr>
                  ))}
                </tbody>
              </table>
            </ScrollRegion>
          </section>
        </>
      )}
    </div>
  );
}
