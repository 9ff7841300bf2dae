/**
 * Where the app thinks the runner is: one geofence per marker, as iOS region monitoring gives
 * them, fed with the phone's fixes. Entering a marker's fence passes it and every marker before it
 * (a fix lost in a tunnel must not leave mile 12 unplayed once the runner is at mile 13).
 */
import distance from '@turf/distance';

export interface FencedMarker {
  id: string;
  distanceMeters: number;
  lat: number;
  lon: number;
}

export interface Fix {
  lat: number;
  lon: number;
  /** Metres, as CoreLocation's horizontalAccuracy. */
  accuracy: number;
}

/** A fence a little wider than a phone's usual error in a street, and wide enough for a fix every 5 s at a run. */
export const FENCE_RADIUS_METERS = 40;
/** Fixes worse than this are not trusted to pass a marker (iOS reports 65 m for a cell-only fix). */
export const MAX_FIX_ACCURACY_METERS = 50;

export class MarkerFences {
  private readonly markers: FencedMarker[];
  private readonly passed = new Set<string>();

  constructor(
    markers: readonly FencedMarker[],
    private readonly radiusMeters = FENCE_RADIUS_METERS,
  ) {
    this.markers = [...markers].sort((a, b) => a.distanceMeters - b.distanceMeters);
  }

  /** The markers this fix passes for the first time, in course order. */
  enter(fix: Fix): string[] {
    if (fix.accuracy > MAX_FIX_ACCURACY_METERS) return [];
    let inside = -1;
    this.markers.forEach((m, i) => {
      if (!this.passed.has(m.id) && distance([fix.lon, fix.lat], [m.lon, m.lat], { units: 'meters' }) <= this.radiusMeters) inside = i;
    });
    if (inside < 0) return [];
    const newly = this.markers
      .slice(0, inside + 1)
      .filter((m) => !this.passed.has(m.id))
      .map((m) => m.id);
    for (const id of newly) this.passed.add(id);
    return newly;
  }

  hasPassed(markerId: string): boolean {
    return this.passed.has(markerId);
  }

  /** The last marker passed, in course order. */
  lastPassed(): string | undefined {
    return this.markers.filter((m) => this.passed.has(m.id)).at(-1)?.id;
  }
}
