import { describe, expect, it } from 'vitest';
import { bucketsIn, gaugeIn } from '../../../bench/load/serverMetrics.js';

const TEXT = [
  '# HELP milenotes_http_request_duration_seconds request to answer',
  'milenotes_http_request_duration_seconds_bucket{le="0.01",method="PUT",route="/n",status_code="201"} 3',
  'milenotes_http_request_duration_seconds_bucket{le="0.1",method="PUT",route="/n",status_code="201"} 5',
  'milenotes_http_request_duration_seconds_bucket{le="+Inf",method="PUT",route="/n",status_code="201"} 6',
  'milenotes_http_request_duration_seconds_bucket{le="0.01",method="GET",route="/n",status_code="200"} 10',
  'milenotes_http_request_duration_seconds_bucket{le="0.1",method="GET",route="/n",status_code="200"} 10',
  'milenotes_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/n",status_code="200"} 10',
  'milenotes_sync_wake_seconds_bucket{le="0.005"} 2',
  'milenotes_sync_wake_seconds_bucket{le="+Inf"} 4',
  'nodejs_eventloop_lag_p99_seconds 0.015',
].join('\n');

describe("a reading of the server's /metrics", () => {
  it("should answer a histogram's buckets for the series its labels pick, summed, in order", () => {
    expect(bucketsIn(TEXT, 'milenotes_http_request_duration_seconds', (l) => l.method === 'PUT')).toEqual([
      { le: 0.01, count: 3 },
      { le: 0.1, count: 5 },
      { le: Infinity, count: 6 },
    ]);
    expect(bucketsIn(TEXT, 'milenotes_http_request_duration_seconds').map((b) => b.count)).toEqual([13, 15, 16]);
    expect(bucketsIn(TEXT, 'milenotes_sync_wake_seconds')).toEqual([
      { le: 0.005, count: 2 },
      { le: Infinity, count: 4 },
    ]);
  });

  it('should answer a gauge, and NaN for one the server does not expose', () => {
    expect(gaugeIn(TEXT, 'nodejs_eventloop_lag_p99_seconds')).toBe(0.015);
    expect(gaugeIn(TEXT, 'nodejs_eventloop_lag_max_seconds')).toBeNaN();
  });
});
