import { ConsoleHome } from "@/components/console/pages/home";

export const metadata = { title: "Console · Charge Cloud" };

export default function Page() {
  return <ConsoleHome />;
}
