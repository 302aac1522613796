// The freight desk's own storage: one PGlite database per process (in memory, or in a data directory), raw SQL.
// The schema is created on start; seed.ts fills it once (a `meta` row remembers that it did).
import { PGlite } from "@electric-sql/pglite";

export type Db = PGlite;

const SCHEMA = `
create table if not exists meta (key text primary key, value text not null);
create table if not exists people (
  email text primary key,
  name text not null,
  role text not null,
  claims text[] not null default '{}'
);
create table if not exists carriers (
  id text primary key,
  name text not null unique,
  mode text not null,
  phone text not null,
  on_time_rate double precision not null,
  updated_at timestamptz not null
);
create table if not exists shipments (
  id text primary key,
  reference text not null unique,
  status text not null,
  origin text not null,
  destination text not null,
  carrier_id text references carriers(id),
  pickup_at timestamptz,
  due_at timestamptz not null,
  notes text not null default '',
  updated_at timestamptz not null
);
create table if not exists exceptions (
  id text primary key,
  shipment_id text not null references shipments(id),
  kind text not null,
  severity text not null,
  status text not null,
  opened_at timestamptz not null,
  note text not null,
  updated_at timestamptz not null
);
create table if not exists documents (
  id text primary key,
  shipment_id text not null references shipments(id),
  filename text not null,
  content_type text not null,
  size integer not null,
  uploaded_by text not null,
  uploaded_at timestamptz not null,
  content bytea not null
);
`;

/** Opens (or creates) the database and its schema. `dataDir` absent: in memory, gone when the process ends. */
export async function openDb(dataDir?: string): Promise<Db> {
  const db = dataDir ? new PGlite(dataDir) : new PGlite();
  await db.waitReady;
  await db.exec(SCHEMA);
  return db;
}
