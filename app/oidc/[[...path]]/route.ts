import { handleOidc } from "@/server/auth/oidc-route";

export const dynamic = "force-dynamic";

export {
  handleOidc as GET,
  handleOidc as POST,
  handleOidc as OPTIONS,
  handleOidc as DELETE,
  handleOidc as HEAD,
};
