"use client";

import {
  Area,
  AreaChart,
  Bar,
  BarChart,
  CartesianGrid,
  Line,
  LineChart,
  ReferenceLine,
  Tooltip,
  XAxis,
  YAxis,
  type DotProps,
  type XAxisProps,
} from "recharts";
import type { ReactNode } from "react";

/**
 * The console's charts, drawn by Recharts (SVG, rendered on the server as well as in the browser)
 * and coloured through Tailwind's `currentColor`: the wrapper's text class sets each series' colour,
 * so light and dark themes need nothing of their own. Each chart is a `figure` whose caption names
 * it; the numbers are also in words beside it (the page's own text), for people who cannot see it.
 */

const axis = { stroke: "currentColor", fontSize: 12 };

/** A time X axis over each point's `t` (milliseconds), labelled by `tickFormatter`. */
const timeAxis = (tickFormatter: (t: number) => string) =>
  ({
    dataKey: "t",
    type: "number",
    scale: "time",
    domain: ["dataMin", "dataMax"],
    tickFormatter,
    tick: axis,
    minTickGap: 24,
  }) satisfies XAxisProps;

/** A chart's frame: responsive width, its height, margins and its title. */
const frame = (title: string, height: number) => ({
  responsive: true,
  style: { width: "100%", height },
  margin: { top: 8, right: 8, bottom: 0, left: 0 },
  title,
});

/** A chart as a figure captioned "caption (unit)", coloured by its wrapper's text class. */
function Figure({
  caption,
  unit,
  testId,
  children,
}: {
  caption: string;
  unit: string;
  testId?: string;
  children: ReactNode;
}) {
  return (
    <figure data-testid={testId} className="min-w-0">
      <figcaption className="mb-1 text-sm font-medium">
        {caption} ({unit})
      </figcaption>
      <div className="text-slate-600 dark:text-slate-400">{children}</div>
    </figure>
  );
}

export type BarDatum = { label: string; value: number };

/** Bars with labels below them (energy or revenue per hour or day). */
export function BarSeries({
  data,
  caption,
  unit,
  testId,
  format = (v) => String(v),
}: {
  data: BarDatum[];
  caption: string;
  unit: string;
  testId?: string;
  format?: (value: number) => string;
}) {
  return (
    <figure data-testid={testId} className="min-w-0">
      <figcaption className="mb-1 text-sm font-medium">{caption}</figcaption>
      <div className="text-slate-600 dark:text-slate-400">
        <BarChart
          responsive
          style={{ width: "100%", height: 180 }}
          data={data}
          margin={{ top: 8, right: 8, bottom: 0, left: 0 }}
          title={caption}
        >
          <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} vertical={false} />
          <XAxis dataKey="label" tick={axis} interval="preserveStartEnd" minTickGap={16} />
          <YAxis tick={axis} width={48} allowDecimals={false} />
          <Tooltip
            formatter={(value) => [`${format(Number(value))} ${unit}`, caption]}
            contentStyle={{ color: "#0f172a" }}
          />
          <Bar
            dataKey="value"
            className="fill-teal-700 dark:fill-teal-400"
            isAnimationActive={false}
          />
        </BarChart>
      </div>
    </figure>
  );
}

export type Point = { t: number; value: number | null };

/** One mark per sample: the point is an SVG circle tests count (`data-point`). */
function SampleDot(props: DotProps & { payload?: Point; value?: unknown }) {
  const { cx, cy } = props;
  if (typeof cx !== "number" || typeof cy !== "number" || props.payload?.value == null) return null;
  return (
    <circle
      data-point=""
      cx={cx}
      cy={cy}
      r={3}
      className="fill-teal-700 stroke-none dark:fill-teal-400"
    />
  );
}

/** A line over time with a point per sample; null values are gaps. */
export function TimeSeries({
  data,
  caption,
  unit,
  testId,
}: {
  data: Point[];
  caption: string;
  unit: string;
  testId?: string;
}) {
  const time = (t: number) =>
    new Date(t).toLocaleTimeString(undefined, { hour: "2-digit", minute: "2-digit" });
  return (
    <Figure caption={caption} unit={unit} testId={testId}>
      <LineChart {...frame(`${caption} (${unit})`, 200)} data={data}>
        <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
        <XAxis {...timeAxis(time)} />
        <YAxis tick={axis} width={48} />
        <Tooltip
          labelFormatter={(t) => new Date(Number(t)).toLocaleString()}
          formatter={(value) => [`${String(value)} ${unit}`, caption]}
          contentStyle={{ color: "#0f172a" }}
        />
        <Line
          type="linear"
          dataKey="value"
          className="stroke-teal-700 dark:stroke-teal-400"
          stroke="currentColor"
          strokeWidth={2}
          dot={<SampleDot />}
          activeDot={false}
          connectNulls={false}
          isAnimationActive={false}
        />
      </LineChart>
    </Figure>
  );
}

/** The series colours of a stacked chart, one per series in turn (text classes: `currentColor`). */
const STACK_COLOURS = [
  "text-teal-600 dark:text-teal-400",
  "text-sky-600 dark:text-sky-400",
  "text-amber-500 dark:text-amber-300",
  "text-violet-600 dark:text-violet-400",
  "text-rose-500 dark:text-rose-300",
  "text-lime-600 dark:text-lime-400",
];

export type StackSeries = { key: string; label: string };
export type StackPoint = { t: number } & Record<string, number>;

/**
 * Shares over time, stacked as steps (each value holds until the next point), with a dashed line
 * at a ceiling (a site's power limit). `data` is in time order; a series absent from a point is 0.
 */
export function StackedSteps({
  data,
  series,
  ceiling,
  caption,
  unit,
  testId,
  format = (v) => String(v),
}: {
  data: StackPoint[];
  series: StackSeries[];
  ceiling: number | null;
  caption: string;
  unit: string;
  testId?: string;
  format?: (value: number) => string;
}) {
  const time = (t: number) =>
    new Date(t).toLocaleTimeString(undefined, {
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  const top = Math.max(
    ceiling ?? 0,
    ...data.map((p) => series.reduce((s, x) => s + (p[x.key] ?? 0), 0)),
  );
  return (
    <Figure caption={caption} unit={unit} testId={testId}>
      <AreaChart {...frame(`${caption} (${unit})`, 220)} data={data}>
        <CartesianGrid strokeDasharray="3 3" strokeOpacity={0.3} />
        <XAxis {...timeAxis(time)} />
        <YAxis
          tick={axis}
          width={48}
          domain={[0, Math.ceil(top * 1.05) || 1]}
          tickFormatter={format}
        />
        <Tooltip
          labelFormatter={(t) => new Date(Number(t)).toLocaleString()}
          formatter={(value, name) => [
            `${format(Number(value))} ${unit}`,
            series.find((s) => s.key === name)?.label ?? String(name),
          ]}
          contentStyle={{ color: "#0f172a" }}
        />
        {series.map((s, i) => (
          <Area
            key={s.key}
            type="stepAfter"
            dataKey={s.key}
            name={s.key}
            stackId="shares"
            className={STACK_COLOURS[i % STACK_COLOURS.length]}
            stroke="currentColor"
            fill="currentColor"
            fillOpacity={0.35}
            isAnimationActive={false}
          />
        ))}
        {ceiling !== null ? (
          <ReferenceLine
            y={ceiling}
            stroke="currentColor"
            strokeDasharray="6 4"
            className="text-red-700 dark:text-red-400"
            label={{
              value: `limit ${format(ceiling)} ${unit}`,
              position: "insideTopRight",
              fontSize: 12,
            }}
          />
        ) : null}
      </AreaChart>
    </Figure>
  );
}
