import express from "express";
import request from "supertest";
import { actorOf, authenticate, requireAuth, type AuthSettings, type UserCredential } from "./auth";
import { hashPassword } from "./passwords";
import { VerifiedCredentials } from "./verified-credentials";

const basic = (user: string, pass: string) => `Basic ${Buffer.from(`${user}:${pass}`).toString("base64")}`;

function appWith(auth: AuthSettings, verified: VerifiedCredentials) {
  const app = express();
  app.use(requireAuth(auth, { verified }));
  app.get("/whoami", (_req, res) => void res.json({ actor: actorOf(res) }));
  return app;
}

let aliceHash: string;
beforeAll(async () => {
  aliceHash = await hashPassword("alice-pass");
});

test("a user's verified header passes again from the cache; a wrong password is still refused and never cached", async () => {
  const verified = new VerifiedCredentials();
  const app = appWith({ users: [{ name: "alice", role: "user", passwordHash: aliceHash }] }, verified);
  expect((await request(app).get("/whoami").set("Authorization", basic("alice", "alice-pass")).expect(200)).body).toEqual({ actor: "alice" });
  expect(verified.size).toBe(1);
  expect((await request(app).get("/whoami").set("Authorization", basic("alice", "alice-pass")).expect(200)).body).toEqual({ actor: "alice" });
  await request(app).get("/whoami").set("Authorization", basic("alice", "alice-pas")).expect(401);
  await request(app).get("/whoami").set("Authorization", basic("alice", "alice-pass ")).expect(401);
  expect(verified.size).toBe(1);
});

test("a cached header skips the key derivation: it passes while the user keeps the hash it was verified against", async () => {
  const verified = new VerifiedCredentials();
  // A hash no password verifies against: only the cache can let this header in.
  const users: UserCredential[] = [{ name: "bob", role: "op", passwordHash: "scrypt$16384$8$1$AAAA$AAAA" }];
  const header = basic("bob", "whatever");
  expect(await authenticate(header, { users })).toBeNull();
  verified.remember(header, "bob", users[0]!.passwordHash);
  expect(await authenticate(header, { users }, verified)).toEqual({ name: "bob", role: "op" });
});

test("a changed password voids the cached header at once: the old password is refused, the new one passes", async () => {
  const verified = new VerifiedCredentials();
  const users: UserCredential[] = [{ name: "alice", role: "user", passwordHash: aliceHash }];
  const app = appWith({ users }, verified);
  await request(app).get("/whoami").set("Authorization", basic("alice", "alice-pass")).expect(200);
  users[0] = { name: "alice", role: "user", passwordHash: await hashPassword("new-pass") };
  await request(app).get("/whoami").set("Authorization", basic("alice", "alice-pass")).expect(401);
  expect(verified.size).toBe(0);
  await request(app).get("/whoami").set("Authorization", basic("alice", "new-pass")).expect(200);
  // A user removed from the configuration is refused too.
  users.splice(0);
  expect(await authenticate(basic("alice", "new-pass"), { users: [{ name: "carol", role: "user", passwordHash: aliceHash }] }, verified)).toBeNull();
});

test("entries expire, the oldest go first beyond the bound, and neither the password nor the header is kept", () => {
  let now = 0;
  const v = new VerifiedCredentials({ ttlMs: 1000, maxEntries: 2, now: () => now });
  const hash = () => "h";
  v.remember(basic("a", "secret-a"), "a", "h");
  v.remember(basic("b", "secret-b"), "b", "h");
  v.remember(basic("c", "secret-c"), "c", "h");
  expect(v.lookup(basic("a", "secret-a"), hash)).toBeUndefined();
  expect(v.lookup(basic("b", "secret-b"), hash)).toBe("b");
  const kept = JSON.stringify([...(v as unknown as { entries: Map<string, unknown> }).entries]);
  for (const s of ["secret-b", "secret-c", Buffer.from("c:secret-c").toString("base64")]) expect(kept).not.toContain(s);
  now = 1000;
  expect(v.lookup(basic("c", "secret-c"), hash)).toBeUndefined();
  expect(v.size).toBe(1);
});
