-- An operation's charger call is built when it is sent (its kind's `build`), no longer stored.
-- What a call needs and nothing may keep (a pushed password) is the sealed `secret`, dropped when
-- the operation is final. A password push still unsent during the upgrade has no secret and is
-- refused when dispatched (rejected, nothing sent). Other unsent operations are built as usual.
-- AlterTable
ALTER TABLE "operations" DROP COLUMN "ocpp_call",
ADD COLUMN     "secret" TEXT;
