import type { StudySeries } from '@/types/images';
import { seriesTitle, useSeriesThumbnail } from '../series-thumbnail';

function Thumbnail({ studyUid, series }: { studyUid: string; series: StudySeries }) {
  const { src } = useSeriesThumbnail(studyUid, series.seriesInstanceUid);
  return <span className="dv-series__thumb">{src ? <img src={src} alt="" /> : null}</span>;
}

/** The study's series, each with its thumbnail; the chosen one is pressed. */
export function SeriesPanel({
  studyUid,
  series,
  current,
  onChoose,
}: {
  studyUid: string;
  series: StudySeries[];
  current: string | null;
  onChoose: (seriesUid: string) => void;
}) {
  return (
    <nav className="dv__series" aria-label="Series">
      <ul>
        {series.map((entry) => (
          <li key={entry.seriesInstanceUid}>
            <button
              type="button"
              className="dv-series"
              aria-pressed={entry.seriesInstanceUid === current}
              onClick={() => onChoose(entry.seriesInstanceUid)}
            >
              <Thumbnail studyUid={studyUid} series={entry} />
              <span className="dv-series__name">{seriesTitle(entry)}</span>
              <span className="dv-series__facts">
                {[entry.modality, `${entry.instances} ${entry.instances === 1 ? 'image' : 'images'}`].filter(Boolean).join(' · ')}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
