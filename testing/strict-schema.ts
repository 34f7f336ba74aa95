import { z } from "zod";

/**
 * The schema with every object closed: a key the schema does not declare fails to parse instead of
 * being dropped. That is what the OpenAPI document already promises of every response object
 * (zod writes `additionalProperties: false` for an object's output), so a served field that is
 * not in the document fails here. Objects that declare a catchall (`looseObject`, `.catchall`)
 * keep it. Only containers are rebuilt, without their checks: parse with the original schema as
 * well, for everything but unknown keys.
 */
export function closedSchema(schema: z.ZodType): z.ZodType {
  return close(schema, new Map());
}

function close(schema: z.ZodType, seen: Map<z.ZodType, z.ZodType>): z.ZodType {
  const known = seen.get(schema);
  if (known) return known;
  const inner = (s: unknown) => close(s as z.ZodType, seen);
  const def = schema.def;
  let closed: z.ZodType;
  switch (def.type) {
    case "object": {
      const object = schema as z.ZodObject;
      const shape = Object.fromEntries(
        Object.entries(object.shape).map(([key, value]) => [key, inner(value)]),
      );
      const catchall = object.def.catchall;
      closed = catchall ? z.object(shape).catchall(inner(catchall)) : z.strictObject(shape);
      break;
    }
    case "array":
      closed = z.array(inner((schema as z.ZodArray).def.element));
      break;
    case "record": {
      const record = (schema as z.ZodRecord).def;
      closed = z.record(record.keyType, inner(record.valueType));
      break;
    }
    case "tuple": {
      const tuple = (schema as z.ZodTuple).def;
      const items = tuple.items.map(inner) as [z.ZodType, ...z.ZodType[]];
      closed = tuple.rest ? z.tuple(items, inner(tuple.rest)) : z.tuple(items);
      break;
    }
    case "union":
      closed = z.union((schema as z.ZodUnion).def.options.map(inner));
      break;
    case "intersection": {
      // each side closed alone would refuse the other's keys: close the merged object instead
      const { left, right } = (schema as z.ZodIntersection).def;
      closed =
        left instanceof z.ZodObject && right instanceof z.ZodObject
          ? inner(left.extend(right.shape))
          : schema;
      break;
    }
    case "optional":
    case "default":
    case "prefault":
      closed = inner((schema as z.ZodOptional).def.innerType).optional();
      break;
    case "nullable":
      closed = inner((schema as z.ZodNullable).def.innerType).nullable();
      break;
    case "nonoptional":
    case "readonly":
    case "catch":
      closed = inner((schema as z.ZodReadonly).def.innerType);
      break;
    case "pipe":
      // a response is served as the pipe's input
      closed = inner((schema as z.ZodPipe).def.in);
      break;
    case "lazy": {
      const lazy = z.lazy(() => inner((schema as z.ZodLazy).def.getter()));
      seen.set(schema, lazy);
      return lazy;
    }
    default:
      closed = schema;
  }
  seen.set(schema, closed);
  return closed;
}
