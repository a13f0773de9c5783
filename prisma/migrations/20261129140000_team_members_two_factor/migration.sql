-- Team members with roles (owner, admin, staff: domain/roles.ts), their email invitations, and two-factor sign-in
-- (TOTP with recovery codes) for the account holder and for members. A session now names the member signed in
-- (null: the account holder); removing a member deletes its sessions, so its tokens stop working at once.

-- CreateEnum
CREATE TYPE "MemberRole" AS ENUM ('OWNER', 'ADMIN', 'STAFF');

-- AlterTable
ALTER TABLE "merchant_sessions" ADD COLUMN     "member_id" UUID;

-- CreateTable
CREATE TABLE "merchant_members" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "role" "MemberRole" NOT NULL,
    "password_changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "merchant_members_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "member_invitations" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" "MemberRole" NOT NULL,
    "invited_by" TEXT NOT NULL,
    "email_message_id" UUID,
    "token_hash" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "accepted_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "member_invitations_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "two_factor_credentials" (
    "id" UUID NOT NULL,
    "subject_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "member_id" UUID,
    "secret_enc" TEXT NOT NULL,
    "enabled_at" TIMESTAMPTZ(3),
    "last_used_step" INTEGER,
    "recovery_code_hashes" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "failed_attempts" INTEGER NOT NULL DEFAULT 0,
    "locked_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "two_factor_credentials_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "merchant_sessions_member_id_idx" ON "merchant_sessions"("member_id");

-- CreateIndex
CREATE UNIQUE INDEX "merchant_members_email_key" ON "merchant_members"("email");

-- CreateIndex
CREATE INDEX "merchant_members_merchant_id_idx" ON "merchant_members"("merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "member_invitations_email_message_id_key" ON "member_invitations"("email_message_id");

-- CreateIndex
CREATE UNIQUE INDEX "member_invitations_token_hash_key" ON "member_invitations"("token_hash");

-- CreateIndex
CREATE INDEX "member_invitations_merchant_id_email_idx" ON "member_invitations"("merchant_id", "email");

-- CreateIndex
CREATE UNIQUE INDEX "two_factor_credentials_subject_id_key" ON "two_factor_credentials"("subject_id");

-- CreateIndex
CREATE UNIQUE INDEX "two_factor_credentials_member_id_key" ON "two_factor_credentials"("member_id");

-- CreateIndex
CREATE INDEX "two_factor_credentials_merchant_id_idx" ON "two_factor_credentials"("merchant_id");

-- AddForeignKey
ALTER TABLE "merchant_sessions" ADD CONSTRAINT "merchant_sessions_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "merchant_members"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchant_members" ADD CONSTRAINT "merchant_members_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "member_invitations" ADD CONSTRAINT "member_invitations_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "two_factor_credentials" ADD CONSTRAINT "two_factor_credentials_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "two_factor_credentials" ADD CONSTRAINT "two_factor_credentials_member_id_fkey" FOREIGN KEY ("member_id") REFERENCES "merchant_members"("id") ON DELETE CASCADE ON UPDATE CASCADE;
