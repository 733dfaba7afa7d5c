import { hashPassword, type AuthSettings, type Role } from "../../packages/http/src";

/** One user per role, password = "<role>-pass"; the admin user and the bearer token as configured in production. */
export async function authWithRoles(): Promise<AuthSettings> {
  const users = await Promise.all((["viewer", "user", "op"] as Role[]).map(async (role) => ({ name: `${role}1`, role, passwordHash: await hashPassword(`${role}-pass`) })));
  return { adminUser: "admin", adminPassword: "admin-pass", apiToken: "tok-security-123", apiTokenRole: "admin", users };
}

/** The Authorization header of the test user with `role`. */
export function basicFor(role: Role): string {
  const [name, pass] = role === "admin" ? ["admin", "admin-pass"] : [`${role}1`, `${role}-pass`];
  return `Basic ${Buffer.from(`${name}:${pass}`).toString("base64")}`;
}
