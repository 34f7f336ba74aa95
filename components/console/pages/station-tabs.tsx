import Link from "next/link";

const TABS = [
  { id: "overview", label: "Overview", path: "" },
  { id: "configuration", label: "Configuration", path: "/configuration" },
  { id: "charging-profiles", label: "Profiles", path: "/charging-profiles" },
  { id: "device", label: "Firmware & diagnostics", path: "/device" },
  { id: "reservations", label: "Reservations & local list", path: "/reservations" },
] as const;

/**
 * The station page's tabs: each one a page of its own, so a tab can be linked to. They wrap onto
 * a second line rather than widen the page at a phone's width.
 */
export function StationTabs({
  tenantId,
  stationId,
  current,
}: {
  tenantId: number;
  stationId: number;
  current: (typeof TABS)[number]["id"];
}) {
  return (
    <nav
      aria-label="Station"
      className="mb-4 flex flex-wrap gap-x-1 border-b border-slate-200 dark:border-slate-800"
    >
      {TABS.map((tab) => (
        <Link
          key={tab.id}
          href={`/console/t/${tenantId}/stations/${stationId}${tab.path}`}
          aria-current={tab.id === current ? "page" : undefined}
          data-testid={`station-tab-${tab.id}`}
          className={`-mb-px border-b-2 px-3 py-2 text-sm ${
            tab.id === current
              ? "border-teal-700 font-semibold text-teal-800 dark:text-teal-300"
              : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400"
          }`}
        >
          {tab.label}
        </Link>
      ))}
    </nav>
  );
}
