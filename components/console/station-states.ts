/** The overview's station states, also the stations list's `state` filter (a plain module: server pages read it too). */
export const STATION_STATES = ["online", "offline", "charging", "faulted"] as const;
export type StationState = (typeof STATION_STATES)[number];
