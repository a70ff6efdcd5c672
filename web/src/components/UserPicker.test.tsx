import { act, fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { createRef } from 'react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { makeUser, pageOf } from '@/test/fixtures';
import { mockApi, renderWithStore } from '@/test/render';
import { UserPicker, type UserPickerHandle, type UserPickerTexts } from './UserPicker';

const TEXTS: UserPickerTexts = {
  legend: 'Person',
  searchLabel: 'Search people',
  one: 'person',
  many: 'people',
  none: (search) => (search ? `Nobody matches ${search}.` : 'Nobody here.'),
  waiting: 'Not yet.',
};

const me = makeUser({ id: 'me', firstname: 'Imran', lastname: 'Siddiqui', email: 'imran@example.test' });
const ayesha = makeUser({ id: 'p-1', firstname: 'Ayesha', lastname: 'Khan', email: 'ayesha@example.test' });

let mock: MockAdapter;

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/users').reply(200, pageOf([me, ayesha], 1, 1, 20));
});

function renderPicker(props: Partial<Parameters<typeof UserPicker>[0]> = {}) {
  const onSelect = vi.fn();
  const ref = createRef<UserPickerHandle>();
  renderWithStore(<UserPicker ref={ref} texts={TEXTS} selected={null} onSelect={onSelect} {...props} />, { token: 't' });
  return { onSelect, ref, group: screen.getByRole('group', { name: 'Person' }) };
}

describe('UserPicker', () => {
  it('is a labelled group: a search box, a polite status and a radio list, without the excluded person', async () => {
    const { group } = renderPicker({ excludeId: 'me' });
    const search = within(group).getByRole('searchbox', { name: 'Search people' });
    const status = within(group).getByText('Loading people…');
    expect(status).toHaveAttribute('aria-live', 'polite');
    expect(await within(group).findByText('1 person')).toBe(status);
    expect(within(group).getAllByRole('radio').map((radio) => radio.closest('label')?.textContent)).toEqual([
      'Khan, Ayeshaayesha@example.test',
    ]);
    expect(search).toHaveAccessibleDescription('1 person');
    expect(mock.history.get[0].params).toEqual({ limit: 20 });
  });

  it('says when more people match than the server counted', async () => {
    const body = pageOf([ayesha], 1, 10, 20);
    mock.onGet('/users').reply(200, { ...body, pagination: { ...body.pagination, totalItems: 100, totalAtLeast: true } });
    const { group } = renderPicker();
    expect(
      await within(group).findByText('Showing 1 of 100+ people: type a name to narrow the list.'),
    ).toBeInTheDocument();
  });

  it('waits, disabled and without asking, until enabled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { group } = renderPicker({ enabled: false });
    expect(within(group).getByRole('searchbox')).toBeDisabled();
    expect(within(group).getByText('Not yet.')).toBeInTheDocument();
    // Well past the pause a search waits for.
    await act(() => vi.advanceTimersByTimeAsync(1000));
    expect(mock.history.get).toHaveLength(0);
  });

  it('searches once typing pauses for 300 ms, with the last text', async () => {
    const { group } = renderPicker();
    await within(group).findAllByRole('radio');
    // The clock is the test's from here: the pause is counted, not waited.
    // (Keys go in as change events: Testing Library's async helpers wait on
    // a timer of their own, which a fake clock would hold.)
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const search = within(group).getByRole('searchbox', { name: 'Search people' });
    fireEvent.change(search, { target: { value: 'kh' } });
    await act(() => vi.advanceTimersByTimeAsync(299));
    expect(mock.history.get).toHaveLength(1);
    fireEvent.change(search, { target: { value: 'kha' } });
    await act(() => vi.advanceTimersByTimeAsync(299));
    expect(mock.history.get).toHaveLength(1);
    await act(() => vi.advanceTimersByTimeAsync(1));
    await vi.waitFor(() => expect(mock.history.get).toHaveLength(2));
    expect(mock.history.get[1].params).toEqual({ limit: 20, search: 'kha' });
  });

  it('asks for one role only when given one', async () => {
    const { group } = renderPicker({ onlyRole: 'patient' });
    await within(group).findAllByRole('radio');
    expect(mock.history.get[0].params).toEqual({ role: 'patient', limit: 20 });
  });

  it('ties its error to the group and the search box, and focuses the first person on request', async () => {
    const { group, ref } = renderPicker({ error: 'Please choose someone.' });
    await within(group).findAllByRole('radio');
    expect(group).toHaveAccessibleDescription(expect.stringContaining('Please choose someone.'));
    expect(within(group).getByRole('searchbox')).toHaveAccessibleDescription(
      expect.stringContaining('Please choose someone.'),
    );
    act(() => ref.current?.focus());
    expect(within(group).getAllByRole('radio')[0]).toHaveFocus();
  });

  it('reports the chosen person and shows a badge and a note when asked', async () => {
    const actor = userEvent.setup();
    const { group, onSelect } = renderPicker({ describe: () => ({ badge: 'Patient', note: 'Already shared.' }) });
    const radio = await within(group).findByRole('radio', { name: /Khan, Ayesha/ });
    expect(radio.closest('label')).toHaveTextContent('Khan, Ayeshaayesha@example.testPatientAlready shared.');
    await actor.click(radio);
    expect(onSelect).toHaveBeenCalledWith(ayesha);
  });
});
