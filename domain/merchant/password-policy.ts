// The merchant password policy: length bounds and the passwords attackers try first. Pure (no node:crypto),
// so the API's schemas, the OpenAPI document and the dashboard's types share it; hashing is security/passwords.ts.

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;

// The most common passwords that are long enough to pass the length rule (shorter ones already fail it).
export const COMMON_PASSWORDS: ReadonlySet<string> = new Set([
  '1234567890', '0123456789', '0987654321', '9876543210', '12345678910', '123456789a', 'a123456789',
  '1234qwerty', 'qwertyuiop', 'qwerty1234', 'qwerty123456', '1q2w3e4r5t', '1qaz2wsx3edc', 'zaq12wsxcde3',
  'asdfghjkl1', 'zxcvbnm123', 'abcdefghij', 'abc1234567', 'password12', 'password123', 'password1234',
  'password!1', 'p@ssw0rd123', 'passw0rd123', 'passwordpassword', 'iloveyou12', 'letmein123',
  'welcome123', 'changeme123', 'admin12345', 'administrator', 'football123', 'sunshine123',
  'princess123', 'monkey12345', 'qwertyuiop123', 'checkout123',
]);

/** Undefined when `plain` is acceptable, else a message to show the merchant. */
export function checkPasswordPolicy(plain: string, context: { email?: string } = {}): string | undefined {
  // Code points, not UTF-16 units, so an emoji counts as one character as the user sees it.
  const characters = [...plain];
  if (characters.length < MIN_PASSWORD_LENGTH) return `Passwords must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (characters.length > MAX_PASSWORD_LENGTH) return `Passwords must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  if (new Set(characters).size === 1) return 'Passwords cannot repeat a single character.';
  const folded = plain.trim().toLowerCase();
  if (COMMON_PASSWORDS.has(folded)) return 'This password is among the most commonly used; choose another.';
  if (context.email && folded === context.email.trim().toLowerCase()) return 'Passwords cannot be the same as the email address.';
  return undefined;
}
