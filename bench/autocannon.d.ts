// The part of autocannon's programmatic API that bench/load.ts uses (the package ships no types; @types/autocannon
// describes an older major).
declare module "autocannon" {
  type Req = { method?: string; path?: string; headers?: Record<string, string>; body?: string };
  type Options = {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: (Req & { setupRequest?: (req: Req) => Req })[];
    /** Called with each connection's client as it is made: `setRequests` gives that connection its own list. */
    setupClient?: (client: { setRequests(requests: Req[]): void }) => void;
  };
  type Histogram = { average: number; mean: number; stddev: number; min: number; max: number; total: number; p50: number; p90: number; p99: number };
  type Result = {
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    resets: number;
    "1xx": number;
    "2xx": number;
    "3xx": number;
    "4xx": number;
    "5xx": number;
    statusCodeStats: Record<string, { count: number }>;
    latency: Histogram;
    requests: Histogram & { sent: number };
    throughput: Histogram;
  };
  function autocannon(opts: Options): Promise<Result>;
  export default autocannon;
}
