// Refs of the freight realm: `freight:<segment>:<id>`, as the manifest's ref templates say. Parsing is syntax only;
// whether an id means anything is the database's business.
export const SEGMENTS = { shipment: "freight.shipment", carrier: "freight.carrier", exception: "freight.exception", document: "freight.document" } as const;
export type Segment = keyof typeof SEGMENTS;
export type Kind = (typeof SEGMENTS)[Segment];

const REF = /^freight:(shipment|carrier|exception|document):([A-Za-z0-9._~-]{1,128})$/;

export const makeRef = (segment: Segment, id: string): string => `freight:${segment}:${id}`;

/** The segment and id of a freight ref, or null when it is not one. */
export function parseRef(ref: string): { segment: Segment; kind: Kind; id: string } | null {
  const m = REF.exec(ref);
  if (!m) return null;
  const segment = m[1] as Segment;
  return { segment, kind: SEGMENTS[segment], id: m[2]! };
}

export const segmentOfKind = (kind: string): Segment | null => (Object.entries(SEGMENTS).find(([, k]) => k === kind)?.[0] as Segment | undefined) ?? null;
