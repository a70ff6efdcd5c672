import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Modal } from '@/components/Modal';
import { TablePager } from '@/components/TablePager';
import { getErrorMessage } from '@/lib/api-client';
import { fullName, roleLabel } from '@/lib/format';
import { notifyError, notifySuccess } from '@/lib/notify';
import { useDebouncedValue } from '@/lib/use-debounced-value';
import { useListUsersQuery } from '@/lib/users-api';
import type { User } from '@/types/api';
import { useApproveUserMutation, useDeleteUserMutation, useResetUserMfaMutation } from '../api';
import '@/components/DataTable.css';

/** product.md §9: user table page sizes, default 5. */
const PAGE_SIZES = [5, 10, 25];

function statusOf(user: User): string {
  if (user.active === false) return 'Inactive';
  if (user.verified === false) return 'Unverified';
  if (user.approved === false) return 'Pending';
  return 'Active';
}

/** Whether the user has a second factor, and which (MFA contract: user objects carry `mfa`). */
function secondFactorOf(user: User): string {
  const mfa = user.mfa;
  if (!mfa) return 'N/A';
  const factors = [mfa.totp ? 'Authenticator' : '', mfa.passkeys > 0 ? `${mfa.passkeys} ${mfa.passkeys === 1 ? 'passkey' : 'passkeys'}` : '']
    .filter(Boolean)
    .join(', ');
  if (factors) return `On (${factors})`;
  return mfa.required ? 'Off (required)' : 'Off';
}

const hasSecondFactor = (user: User) => Boolean(user.mfa && (user.mfa.totp || user.mfa.passkeys > 0));

interface UserTableProps {
  /** Whoever manages users (users:manage: admins, product.md §6) approves and deletes them. */
  canManage: boolean;
  /** The signed-in user's id: nobody deletes themselves from this table. */
  selfId?: string;
}

/** The user directory of GET /api/users with search, paging and selection. */
export function UserTable({ canManage, selfId }: UserTableProps) {
  const [limit, setLimit] = useState(PAGE_SIZES[0]);
  const [searchText, setSearchText] = useState('');
  const search = useDebouncedValue(searchText.trim());
  // A new search starts again at page 1.
  const [paging, setPaging] = useState({ search, page: 1 });
  const page = paging.search === search ? paging.page : 1;
  const setPage = (next: number) => setPaging({ search, page: next });
  const [selected, setSelected] = useState<Set<string>>(() => new Set());
  const [toDelete, setToDelete] = useState<User | null>(null);
  const [deleting, setDeleting] = useState(false);
  const selectAll = useRef<HTMLInputElement>(null);
  const { data, error, isError, isFetching: loading } = useListUsersQuery({ page, limit, search: search || undefined });
  const [deleteUser] = useDeleteUserMutation();
  const [approveUser] = useApproveUserMutation();
  const [approving, setApproving] = useState<string | null>(null);
  const [toReset, setToReset] = useState<User | null>(null);
  const [resetUserMfa, { isLoading: resetting }] = useResetUserMfaMutation();

  useEffect(() => {
    if (isError) notifyError(getErrorMessage(error, 'The users could not be loaded.'));
  }, [isError, error]);

  const rows = data?.data ?? [];
  const pagination = data?.pagination;
  const selectedOnPage = rows.filter((row) => selected.has(row.id)).length;
  const allOnPage = rows.length > 0 && selectedOnPage === rows.length;

  useEffect(() => {
    if (selectAll.current) selectAll.current.indeterminate = selectedOnPage > 0 && !allOnPage;
  }, [selectedOnPage, allOnPage]);

  function toggle(id: string) {
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  function toggleAll() {
    setSelected((current) => {
      const next = new Set(current);
      rows.forEach((row) => (allOnPage ? next.delete(row.id) : next.add(row.id)));
      return next;
    });
  }

  /** A provider waiting for approval may sign in once approved (admins). */
  async function approve(user: User) {
    setApproving(user.id);
    try {
      const result = await approveUser(user.id).unwrap();
      notifySuccess(result.message || 'User updated successfully.');
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'The user could not be approved. Please try again.'));
    } finally {
      setApproving(null);
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    setDeleting(true);
    try {
      const result = await deleteUser(toDelete.id).unwrap();
      notifySuccess(result.message || 'User deleted.');
      setSelected((current) => {
        const next = new Set(current);
        next.delete(toDelete.id);
        return next;
      });
      setToDelete(null);
      // The last row of a later page: show the page before it (the list reloads itself).
      if (rows.length === 1 && page > 1) setPage(page - 1);
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'The user could not be deleted. Please try again.'));
    } finally {
      setDeleting(false);
    }
  }

  async function confirmReset() {
    if (!toReset) return;
    try {
      const result = await resetUserMfa(toReset.id).unwrap();
      notifySuccess(result.message || 'The second factors are reset.');
      setToReset(null);
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'The second factors could not be reset. Please try again.'));
    }
  }

  return (
    <section className="card data-table" aria-labelledby="users-title">
      <div className="data-table__header">
        <h2 id="users-title" className="data-table__title">
          Users
        </h2>
        <div className="data-table__search">
          <label htmlFor="user-search">Search users</label>
          <input
            id="user-search"
            type="search"
            className="field__control"
            placeholder="Name or email"
            value={searchText}
            onChange={(event) => setSearchText(event.target.value)}
          />
        </div>
      </div>

      <p className="data-table__status" aria-live="polite">
        {loading
          ? 'Loading users…'
          : `${pagination?.totalItems ?? rows.length}${pagination?.totalAtLeast ? '+' : ''} users${selected.size ? `, ${selected.size} selected` : ''}`}
      </p>

      <div className="data-table__scroll">
        <table aria-labelledby="users-title" aria-busy={loading}>
          <thead>
            <tr>
              <th scope="col" className="data-table__check">
                <input
                  ref={selectAll}
                  type="checkbox"
                  aria-label="Select all users on this page"
                  checked={allOnPage}
                  disabled={rows.length === 0}
                  onChange={toggleAll}
                />
              </th>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Username</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              {canManage && <th scope="col">Second factor</th>}
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && !loading && (
              <tr>
                <td colSpan={canManage ? 8 : 7} className="data-table__empty">
                  {isError ? 'The users could not be loaded.' : 'No users found.'}
                </td>
              </tr>
            )}
            {rows.map((row) => {
              const name = fullName(row) || row.username;
              return (
                <tr key={row.id} className={selected.has(row.id) ? 'is-selected' : undefined}>
                  <td className="data-table__check">
                    <input
                      type="checkbox"
                      aria-label={`Select ${name}`}
                      checked={selected.has(row.id)}
                      onChange={() => toggle(row.id)}
                    />
                  </td>
                  <th scope="row">{name}</th>
                  <td>{row.email}</td>
                  <td>{row.username}</td>
                  <td>{roleLabel(row.role)}</td>
                  <td>
                    <span className={`status status--${statusOf(row).toLowerCase()}`}>{statusOf(row)}</span>
                  </td>
                  {canManage && <td>{secondFactorOf(row)}</td>}
                  <td>
                    <div className="data-table__actions">
                      <Link
                        to={`/user-profile/${encodeURIComponent(row.id)}`}
                        className="btn btn--outline btn--small"
                        aria-label={`View ${name}`}
                      >
                        View
                      </Link>
                      {canManage && row.approved === false && (
                        <button
                          type="button"
                          className="btn btn--primary btn--small"
                          aria-label={`Approve ${name}`}
                          disabled={approving === row.id}
                          onClick={() => void approve(row)}
                        >
                          {approving === row.id ? 'Approving…' : 'Approve'}
                        </button>
                      )}
                      {canManage && hasSecondFactor(row) && (
                        <button
                          type="button"
                          className="btn btn--outline btn--small"
                          aria-label={`Reset the second factor of ${name}`}
                          onClick={() => setToReset(row)}
                        >
                          Reset second factor
                        </button>
                      )}
                      {canManage && row.id !== selfId && (
                        <button
                          type="button"
                          className="btn btn--danger-outline btn--small"
                          aria-label={`Delete ${name}`}
                          onClick={() => setToDelete(row)}
                        >
                          Delete
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>

      <TablePager
        sizes={PAGE_SIZES}
        limit={limit}
        onLimit={(size) => {
          setLimit(size);
          setPage(1);
        }}
        page={page}
        pagination={pagination}
        busy={loading}
        onPage={setPage}
      />

      {toReset && (
        <Modal
          title="Reset second factor"
          onClose={() => !resetting && setToReset(null)}
          description={
            <>
              Reset the second factor of <strong>{fullName(toReset) || toReset.username}</strong> ({toReset.email})? Their
              authenticator, passkeys and recovery codes are removed, and they are told by email. If their role requires a
              second factor, they must set one up again when they next sign in.
            </>
          }
        >
          <div className="modal__actions">
            <button type="button" className="btn btn--outline" onClick={() => setToReset(null)} disabled={resetting} data-autofocus>
              Cancel
            </button>
            <button type="button" className="btn btn--danger" onClick={() => void confirmReset()} disabled={resetting}>
              {resetting ? 'Resetting…' : 'Reset'}
            </button>
          </div>
        </Modal>
      )}

      {toDelete && (
        <Modal
          title="Delete user"
          onClose={() => !deleting && setToDelete(null)}
          description={
            <>
              Delete <strong>{fullName(toDelete) || toDelete.username}</strong> ({toDelete.email})? The account is
              deactivated and its profile details are erased; records and audit entries stay.
            </>
          }
        >
          <div className="modal__actions">
            <button type="button" className="btn btn--outline" onClick={() => setToDelete(null)} disabled={deleting} data-autofocus>
              Cancel
            </button>
            <button type="button" className="btn btn--danger" onClick={() => void confirmDelete()} disabled={deleting}>
              {deleting ? 'Deleting…' : 'Delete'}
            </button>
          </div>
        </Modal>
      )}
    </section>
  );
}
