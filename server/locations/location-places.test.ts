import { describe, expect, it } from "vitest";
import {
  COUNTRY_CODES,
  countryName,
  countryOptions,
  defaultZone,
  inZone,
  tileAt,
  zonesOf,
} from "../../components/console/location-places";

describe("location places", () => {
  it("offers the 249 ISO 3166-1 alpha-2 countries by name, United Kingdom whole", () => {
    expect(new Set(COUNTRY_CODES).size).toBe(249);
    expect(countryName("GB", "en")).toBe("United Kingdom");
    const options = countryOptions("en");
    expect(options.find((o) => o.code === "GB")?.name).toBe("United Kingdom");
    expect(options.every((o) => o.name !== o.code)).toBe(true);
  });

  it("defaults the time zone from a one-zone country, never New York for London", () => {
    expect(zonesOf("GB")).toEqual(["Europe/London"]);
    expect(defaultZone("GB", "America/New_York")).toBe("Europe/London");
    expect(defaultZone("US", "America/Chicago")).toBe("America/Chicago");
    expect(defaultZone("US", "Europe/London")).toBe("");
  });

  it("writes a date in the location's zone with the zone named", () => {
    expect(inZone("2026-07-01T12:00:00Z", "Europe/London")).toBe(
      "1 Jul 2026, 13:00:00 BST (Europe/London)",
    );
  });

  it("finds the map tile of a point (London at zoom 10 is tile 511/340)", () => {
    const t = tileAt("https://tiles.example/{z}/{x}/{y}.png", 51.5074, -0.1278, 10);
    expect(t).toMatchObject({ x: 511, y: 340, url: "https://tiles.example/10/511/340.png" });
    expect(t.left).toBeGreaterThan(0);
    expect(t.left).toBeLessThan(1);
  });
});
