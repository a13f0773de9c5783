-- The merchant's checkout texts per page language: { "de": { "headline": "Fast geschafft" }, ... }. A page in a language
-- listed here shows those texts; any text not given for it falls back to checkout_texts (as written), then to the
-- page's own words in that language.

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "checkout_text_translations" JSONB NOT NULL DEFAULT '{}';
