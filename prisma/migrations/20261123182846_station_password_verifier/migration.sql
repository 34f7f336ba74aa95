-- AlterTable
ALTER TABLE "stations" ADD COLUMN     "password_verifier" TEXT;
