import type { PageProps } from '../../routes';
import { NewSegment } from './new-segment';
import { SegmentDetail } from './segment-detail';

/** /segments/new builds a segment; /segments/:id shows one (its filter is fixed once created). */
export default function SegmentPage({ params }: PageProps) {
  return params.id === 'new' ? <NewSegment /> : <SegmentDetail id={params.id!} />;
}
