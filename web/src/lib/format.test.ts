import { describe, expect, it } from 'vitest';
import { formatMessageTime } from './format';

// 12 May 2025, 3:00 pm in Pakistan (UTC+5).
const NOW = new Date('2025-05-12T10:00:00Z');

describe('formatMessageTime (product.md §2 /messages, en-PK, Asia/Karachi)', () => {
  it('shows the time of day for a message of today', () => {
    expect(formatMessageTime('2025-05-12T09:30:00Z', NOW)).toBe('2:30 pm');
    // 00:10 in Karachi is still today there, though it is the 11th in UTC.
    expect(formatMessageTime('2025-05-11T19:10:00Z', NOW)).toBe('12:10 am');
  });

  it("says 'Yesterday' for the day before, in Pakistan's days", () => {
    expect(formatMessageTime('2025-05-11T12:00:00Z', NOW)).toBe('Yesterday');
    // 23:59 on the 11th in Karachi.
    expect(formatMessageTime('2025-05-11T18:59:00Z', NOW)).toBe('Yesterday');
    // 00:01 on the 11th in Karachi (still the 10th in UTC).
    expect(formatMessageTime('2025-05-10T19:01:00Z', NOW)).toBe('Yesterday');
  });

  it('shows the date for anything older', () => {
    expect(formatMessageTime('2025-05-10T18:59:00Z', NOW)).toBe('10/05/2025');
    expect(formatMessageTime('2024-12-31T08:00:00Z', NOW)).toBe('31/12/2024');
  });

  it('turns the day at midnight in Karachi, not in UTC', () => {
    // 00:30 on 13 May in Karachi, 19:30 on the 12th in UTC.
    const justAfterMidnight = new Date('2025-05-12T19:30:00Z');
    expect(formatMessageTime('2025-05-12T19:05:00Z', justAfterMidnight)).toBe('12:05 am');
    expect(formatMessageTime('2025-05-12T18:55:00Z', justAfterMidnight)).toBe('Yesterday');
  });

  it('knows yesterday across a month and a year', () => {
    const newYear = new Date('2025-01-01T04:00:00Z'); // 9 am on 1 January in Karachi
    expect(formatMessageTime('2024-12-31T10:00:00Z', newYear)).toBe('Yesterday');
    expect(formatMessageTime('2024-12-30T10:00:00Z', newYear)).toBe('30/12/2024');
  });

  it('shows nothing for a missing time and an unreadable one as given', () => {
    expect(formatMessageTime(null, NOW)).toBe('');
    expect(formatMessageTime('soon', NOW)).toBe('soon');
  });
});
