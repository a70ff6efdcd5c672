import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type MockAdapter from 'axios-mock-adapter';
import { beforeEach, describe, expect, it } from 'vitest';
import { makeImage, makeUser } from '@/test/fixtures';
import { mockApi, renderRoute } from '@/test/render';
import type { Analysis } from '../api';

let mock: MockAdapter;
const provider = makeUser({ role: 'healthProvider' });

const builtin: Analysis = {
  description: 'A CT image of the chest, 512 × 512 pixels as rendered, square.',
  differentialDiagnosis: [],
  treatment: [],
  followUp: ['Have a qualified clinician read the image.'],
  warnings: ['Image quality and metadata only - not a diagnosis.', '**'],
  confidence: null,
  imageId: 'img-1',
  timestamp: '2026-11-24T10:00:00Z',
  model: 'medishare-quality-1',
  provider: 'builtin',
  measurements: [{ key: 'noise_sigma', label: 'Estimated noise (sigma, 0-255)', value: 1.25, unit: '' }],
};

beforeEach(() => {
  mock = mockApi();
  mock.onGet('/upload/image/img-1').reply(200, { data: makeImage({ id: 'img-1', caption: 'Chest CT' }) });
});

function section(title: string) {
  return screen.getByRole('heading', { level: 3, name: title }).closest('section') as HTMLElement;
}

describe('/ai-analysis/:id', () => {
  it('says "Analyzing" while it loads, then shows every section with its empty text', async () => {
    mock.onGet('/analyze/img-1').reply(200, { data: builtin });
    renderRoute('/ai-analysis/img-1', { user: provider, token: 't' });
    expect(screen.getAllByText('Analyzing').length).toBeGreaterThan(0);

    expect(await screen.findByRole('heading', { level: 3, name: 'Description' })).toBeInTheDocument();
    expect(section('Description')).toHaveTextContent(builtin.description);
    expect(section('Differential Diagnosis')).toHaveTextContent('No differential diagnosis available.');
    expect(section('Treatment')).toHaveTextContent('No treatment available.');
    expect(section('Follow-Up')).toHaveTextContent('Have a qualified clinician read the image.');
    expect(within(section('Warnings')).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Image quality and metadata only - not a diagnosis.',
    ]);
    expect(section('Confidence Score')).toHaveTextContent('No confidence score available.');
    expect(section('Measurements')).toHaveTextContent('Estimated noise (sigma, 0-255)1.25');
    expect(screen.getByText(/^Analysis generated at/)).toHaveTextContent(/24-Nov-2026/);
    expect(screen.getByRole('note')).toHaveTextContent('It is not a diagnosis');
    expect(screen.getByText(/Built-in analyser/)).toHaveTextContent('model medishare-quality-1');
  });

  it('drops "**" entries and strips "**" from the description; confidences in percent', async () => {
    mock.onGet('/analyze/img-1').reply(200, {
      data: {
        ...builtin,
        provider: 'openai',
        model: 'gpt-4o',
        description: '**Findings:** a clear image.',
        differentialDiagnosis: [
          { condition: 'Fracture', confidence: 0.6 },
          { condition: '**', confidence: 0.1 },
        ],
        treatment: ['**', 'Rest'],
        warnings: [],
        confidence: 0.87,
      },
    });
    renderRoute('/ai-analysis/img-1', { user: provider, token: 't' });
    expect(await screen.findByText('Findings: a clear image.')).toBeInTheDocument();
    expect(within(section('Differential Diagnosis')).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Fracture (60%)']);
    expect(within(section('Treatment')).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Rest']);
    expect(section('Warnings')).toHaveTextContent('No warnings available.');
    expect(section('Confidence Score')).toHaveTextContent('87%');
  });

  it("toasts the server's message when the analysis arrives (product.md §7)", async () => {
    mock.onGet('/analyze/img-1').reply(200, { message: 'Analysis complete.', data: builtin });
    renderRoute('/ai-analysis/img-1', { user: provider, token: 't' });
    expect(await screen.findByText('Analysis complete.')).toBeInTheDocument();
    expect(await screen.findByRole('heading', { level: 3, name: 'Description' })).toBeInTheDocument();
  });

  it('runs the analysis again and toasts its message once', async () => {
    mock.onGet('/analyze/img-1').reply(200, { data: builtin });
    mock.onPost('/analyze/img-1').reply(200, { message: 'Analysis complete.', data: { ...builtin, timestamp: '2026-11-25T10:00:00Z' } });
    const actor = userEvent.setup();
    renderRoute('/ai-analysis/img-1', { user: provider, token: 't' });
    await actor.click(await screen.findByRole('button', { name: 'Run again' }));
    expect(await screen.findByText('Analysis complete.')).toBeInTheDocument();
    await waitFor(() => expect(screen.getByText(/^Analysis generated at/)).toHaveTextContent(/25-Nov-2026/));
    expect(screen.getAllByText('Analysis complete.')).toHaveLength(1);
    expect(mock.history.post).toHaveLength(1);
  });

  it('shows the server\'s answer when the analysis service is down', async () => {
    mock.onGet('/analyze/img-1').reply(503, { message: 'The analysis service is not available right now. Please try again later.' });
    renderRoute('/ai-analysis/img-1', { user: provider, token: 't' });
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error data: The analysis service is not available right now. Please try again later.',
    );
  });
});
