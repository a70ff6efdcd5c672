import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { Spinner } from '@/components/Spinner';
import { describeLoadError, getErrorMessage } from '@/lib/api-client';
import { formatDateTime } from '@/lib/format';
import { notifyError } from '@/lib/notify';
import { cleanDescription, cleanEntries, percent, useGetAnalysisQuery, useRunAnalysisMutation, type Analysis } from '../api';
import '@/components/DataTable.css';
import '../analysis.css';

interface AiAnalysisPageProps {
  /** The image beside the analysis (the images feature's, composed in app/). */
  image?: (imageId: string) => ReactNode;
  /** Without an id: the images the caller may analyse. */
  picker?: ReactNode;
}

const PROVIDER_NAMES: Record<string, string> = {
  builtin: 'Built-in analyser (on this server)',
  openai: 'External vision model',
};

/** /ai-analysis/:id (product.md): an image's AI analysis, section by section. */
export function AiAnalysisPage({ image, picker }: AiAnalysisPageProps) {
  const { id } = useParams();
  return (
    <div className="analysis-page">
      <title>AI Medical Analysis · MediShare</title>
      <h1 className="page-title">AI Medical Analysis</h1>
      {id ? (
        <AnalysisOf imageId={id} image={image?.(id)} />
      ) : (
        <section aria-labelledby="pick-title">
          <h2 id="pick-title">Choose an image to analyse</h2>
          {picker}
        </section>
      )}
    </div>
  );
}

function AnalysisOf({ imageId, image }: { imageId: string; image: ReactNode }) {
  const { data: answer, error, isError, isFetching } = useGetAnalysisQuery(imageId);
  const data = answer?.data;
  const [run, running] = useRunAnalysisMutation();

  // The answer's message is toasted by the cache entry it lands in (../api.ts).
  async function runAgain() {
    try {
      await run(imageId).unwrap();
    } catch (failure) {
      notifyError(getErrorMessage(failure, 'The analysis service is not available right now. Please try again later.'));
    }
  }

  if (!data && isFetching) {
    return (
      <div className="analysis-loading" role="status">
        <Spinner label="Analyzing" />
        <p>Analyzing</p>
      </div>
    );
  }
  if (!data) {
    return (
      <p className="form-error" role="alert">
        {isError ? describeLoadError(error) : 'No analysis available.'}
      </p>
    );
  }
  return (
    <div className="analysis-layout">
      {image && <div className="analysis-image">{image}</div>}
      <article className="card analysis-card" aria-labelledby="analysis-title" aria-busy={running.isLoading}>
        <h2 id="analysis-title" className="visually-hidden">
          Analysis
        </h2>
        <p className="analysis-disclaimer" role="note">
          {data.provider === 'builtin'
            ? 'This analysis measures image quality and reads the file’s technical facts. It is not a diagnosis: a qualified clinician must read the image.'
            : 'This analysis was written by an AI model. It can be wrong and is not a diagnosis: a qualified clinician must read the image.'}
        </p>
        <Sections analysis={data} />
        <p className="analysis-meta">
          {PROVIDER_NAMES[data.provider] ?? data.provider} · model {data.model}
          {data.provenance && ` · de-identified image sent to ${data.provenance.sentTo}`}
        </p>
        <button type="button" className="btn btn--primary" onClick={() => void runAgain()} disabled={running.isLoading}>
          {running.isLoading ? 'Analyzing...' : 'Run again'}
        </button>
      </article>
    </div>
  );
}

function Sections({ analysis }: { analysis: Analysis }) {
  const description = cleanDescription(analysis.description);
  const conditions = analysis.differentialDiagnosis.filter((c) => c.condition.trim() !== '' && c.condition.trim() !== '**');
  return (
    <>
      <section className="analysis-section">
        <h3>Description</h3>
        <p>{description || 'No description available.'}</p>
      </section>
      <section className="analysis-section">
        <h3>Differential Diagnosis</h3>
        {conditions.length ? (
          <ul>
            {conditions.map((c) => (
              <li key={c.condition}>
                {c.condition} <span className="analysis-confidence">({percent(c.confidence)})</span>
              </li>
            ))}
          </ul>
        ) : (
          <p>No differential diagnosis available.</p>
        )}
      </section>
      <ListSection title="Treatment" items={analysis.treatment} empty="No treatment available." />
      <ListSection title="Follow-Up" items={analysis.followUp} empty="No follow-up available." />
      <ListSection title="Warnings" items={analysis.warnings} empty="No warnings available." />
      <section className="analysis-section">
        <h3>Confidence Score</h3>
        <p>{analysis.confidence === null ? 'No confidence score available.' : percent(analysis.confidence)}</p>
      </section>
      {analysis.measurements.length > 0 && (
        <section className="analysis-section">
          <h3>Measurements</h3>
          <div className="data-table__scroll">
            <table className="analysis-measurements">
              <caption className="visually-hidden">What the analyser measured</caption>
              <tbody>
                {analysis.measurements.map((m) => (
                  <tr key={m.key}>
                    <th scope="row">{m.label}</th>
                    <td>
                      {m.value.toLocaleString('en-PK')}
                      {m.unit && ` ${m.unit}`}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
      <p className="analysis-generated">
        Analysis generated at <time dateTime={analysis.timestamp}>{formatDateTime(analysis.timestamp)}</time>
      </p>
    </>
  );
}

function ListSection({ title, items, empty }: { title: string; items: string[]; empty: string }) {
  const kept = cleanEntries(items);
  return (
    <section className="analysis-section">
      <h3>{title}</h3>
      {kept.length ? (
        <ul>
          {kept.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      ) : (
        <p>{empty}</p>
      )}
    </section>
  );
}
