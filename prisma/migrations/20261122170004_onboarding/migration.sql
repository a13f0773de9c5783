-- The onboarding wizard resumes at the step the merchant was last on (1-6; null: not started).
-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "onboarding_step" INTEGER;
