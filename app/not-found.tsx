import { NotFoundView } from "@/components/not-found-view";

export const metadata = { title: "Not found · Charge Cloud" };

/** Any address the app has no page for (outside the console). */
export default function NotFound() {
  return (
    <main>
      <NotFoundView inConsole={false} />
    </main>
  );
}
