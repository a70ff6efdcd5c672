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
import { useApproveUserMutation, useDeleteUserMutation } from '../api';
import '@/components/DataTable.css';
import '@/components/DataTable.css';

/** product.md §9: user table page sizes, default 5. */
const PAGE_SIZES = [5, 10, 25];

function statusOf(user: User): string {
  if (user.active === false) return 'Inactive';
  if (user.verified === false) return 'Unverified';
  if (user.approved === false) return 'Pending';
  return 'Active';
}

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
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.length === 0 && !loading && (
              <tr>
                <td colSpan={7} className="data-table__empty">
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
