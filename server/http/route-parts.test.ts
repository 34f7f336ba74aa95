import { describe, expect, it } from "vitest";
import { allRoutes } from "./routes";
import { byParts, compileRoutes, match } from "./router";

const compiled = compileRoutes(allRoutes);
const routesFor = byParts(compiled);
const names = (found: ReturnType<typeof match>) =>
  found.map((f) => `${f.route.def.method} ${f.route.def.path} ${JSON.stringify(f.params)}`);

/** A request path for a route template: each `{name}` a value, its extension kept. */
const pathOf = (template: string, value: string) => template.replace(/\{\w+\}/g, value);

describe("the router tries only the routes with the path's count of parts", () => {
  it("finds for every route's path exactly what trying every route finds", () => {
    const paths = new Set<string>();
    for (const { path } of allRoutes)
      for (const value of ["1", "x", "%2F", "a.b"]) {
        const target = pathOf(path, value);
        paths.add(target).add(`${target}/`).add(`${target}//`).add(`/${target}`);
      }
    for (const odd of ["/v1", "/v1/", "/v1//health", "/", "", "/v1/tenants//stations"])
      paths.add(odd);
    expect(paths.size).toBeGreaterThan(allRoutes.length * 4);
    let matched = 0;
    for (const target of paths) {
      const everyRoute = names(match(compiled, target));
      expect(names(match(routesFor(target), target)), target).toEqual(everyRoute);
      if (everyRoute.length) matched++;
    }
    // most of them match some route: the comparison is not between two empty lists
    expect(matched).toBeGreaterThan(allRoutes.length);
  });
});
