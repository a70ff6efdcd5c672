import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { mockApi, renderRoute } from '@/test/render';

function cards() {
  return within(screen.getByRole('list', { name: 'Sample images' })).getAllByRole('article');
}

describe('/share-image', () => {
  it('shows four sample images with captions and static sample expiry dates, and says they are samples', async () => {
    const mock = mockApi();
    renderRoute('/share-image');
    expect(await screen.findByRole('heading', { level: 1, name: 'Share Your Image' })).toBeInTheDocument();
    expect(screen.getByText(/These are samples drawn for this demo, not patient data/)).toBeInTheDocument();
    const items = cards();
    expect(items).toHaveLength(4);
    expect(items.map((item) => within(item).getByRole('heading', { level: 2 }).textContent)).toEqual([
      'Chest X-ray',
      'Hand X-ray',
      'Brain MRI',
      'Knee X-ray',
    ]);
    expect(items[0]).toHaveTextContent('Sample expiry: 31/03/2030');
    expect(within(items[0]).getByRole('img')).toHaveAttribute('src', '/demo/chest-xray.svg');
    expect(within(items[0]).getByRole('img')).toHaveAccessibleName(/Sample drawing of a chest X-ray/);
    expect(screen.getByRole('link', { name: 'Back to home' })).toHaveAttribute('href', '/');
    // A static page: nothing is asked of the server.
    expect(mock.history.get).toHaveLength(0);
  });

  it("copies the image's link to the clipboard and says so", async () => {
    const user = userEvent.setup();
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    renderRoute('/share-image');
    await user.click(await screen.findByRole('button', { name: 'Copy link to Hand X-ray' }));
    await vi.waitFor(() => expect(alert).toHaveBeenCalledWith('Link copied to clipboard!'));
    expect(await navigator.clipboard.readText()).toBe(`${window.location.origin}/demo/hand-xray.svg`);
  });

  it('reports a refused clipboard without the alert', async () => {
    const user = userEvent.setup();
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
    vi.spyOn(console, 'error').mockImplementation(() => {});
    vi.spyOn(navigator.clipboard, 'writeText').mockRejectedValue(new Error('denied'));
    renderRoute('/share-image');
    await user.click(await screen.findByRole('button', { name: 'Copy link to Brain MRI' }));
    await vi.waitFor(() => expect(console.error).toHaveBeenCalledWith('Copy to clipboard failed', expect.anything()));
    expect(alert).not.toHaveBeenCalled();
  });

  it('links to a social network, a microblog and mail', async () => {
    renderRoute('/share-image');
    const link = encodeURIComponent(`${window.location.origin}/demo/knee-xray.svg`);
    const facebook = await screen.findByRole('link', { name: 'Share Knee X-ray on Facebook (opens in a new tab)' });
    expect(facebook).toHaveAttribute('href', `https://www.facebook.com/sharer/sharer.php?u=${link}`);
    expect(facebook).toHaveAttribute('target', '_blank');
    expect(facebook).toHaveAttribute('rel', 'noopener noreferrer');
    const x = screen.getByRole('link', { name: 'Share Knee X-ray on X (Twitter) (opens in a new tab)' });
    expect(x.getAttribute('href')).toMatch(/^https:\/\/twitter\.com\/intent\/tweet\?url=/);
    expect(x.getAttribute('href')).toContain(`url=${link}`);
    const mail = screen.getByRole('link', { name: 'Share Knee X-ray by email' });
    expect(mail.getAttribute('href')).toMatch(/^mailto:\?subject=Knee%20X-ray/);
    expect(mail.getAttribute('href')).toContain(link);
  });
});
