import { notFound } from "next/navigation";

/** Any console address no page matches: the console's own 404 (app/console/not-found.tsx). */
export default function Page() {
  notFound();
}
