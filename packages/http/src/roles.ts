import type { Request } from "express";

/** Roles in Airflow's spirit, lowest first: read; plan and run; approve, pause, delete; everything. */
export const ROLES = ["viewer", "user", "op", "admin"] as const;
export type Role = (typeof ROLES)[number];

/** Whether `have` is `need` or above. */
export function roleAtLeast(have: Role, need: Role): boolean {
  return ROLES.indexOf(have) >= ROLES.indexOf(need);
}

/** Decides the lowest role a request needs (after authentication). */
export type RolePolicy = (req: Request) => Role;

/** Reads are for viewers; everything else for users unless a policy says more. */
export const defaultRolePolicy: RolePolicy = (req) => (req.method === "GET" || req.method === "HEAD" || req.method === "OPTIONS" ? "viewer" : "user");
