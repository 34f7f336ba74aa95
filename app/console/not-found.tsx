import { NotFoundView } from "@/components/not-found-view";

export const metadata = { title: "Not found · Charge Cloud" };

/** A console address that leads nowhere, shown inside the console's own frame. */
export default function NotFound() {
  return <NotFoundView inConsole />;
}
