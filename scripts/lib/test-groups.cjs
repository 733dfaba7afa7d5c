#!/usr/bin/env node
// Split the suite's test files (jest --listTests --json on stdin) into three groups, written one
// path per line to the files named by argv[2] (serial), argv[3] (beside) and argv[4] (after):
// - serial: files that boot VMs under software emulation, run the HA/outage fault stacks, or time
//   SSH and Ansible: they run one at a time at normal priority, because a TCG guest misses
//   deadlines when a second heavy file loads both cores;
// - beside: every other file (Postgres, Redis, in-process services, Chromium): they run in a second
//   jest process at a lower CPU priority while the serial group waits on its guests;
// - after: heavy files that boot no VM and time no fault (Docker, the deployment scripts, the SSH
//   quoting corpus): one at a time in that second process once the beside group is done, so they
//   use the core the serial group's single-guest files leave idle instead of lengthening its line.
// A file whose path is new falls in "beside" unless a pattern below names it, so a new VM test
// must either live under one of these folders or be added here.
"use strict";
const { readFileSync, writeFileSync } = require("node:fs");
const { relative } = require("node:path");

// Matched first: these run after the beside group, not in the serial line.
const AFTER = [
  /^test\/deploy\/(compose-stack|deploy)\.test\.ts$/,
  /^packages\/operators\/src\/host\/operators-quoting\.test\.ts$/,
];

const SERIAL = [
  /^test\/(e2e|deploy|ha)\//,
  /^test\/security\/(postgres-outage|redis-outage|worker-stop)\./,
  /^packages\/vm\/test\//,
  /^packages\/hosts\/test\/routing-monitor\.test\.ts$/,
  // Private libvirtd + sshd hosts (startSecondHost); second-host.test.ts also boots a VM.
  /^packages\/testing\/test\/second-host\.test\.ts$/,
  /^packages\/hosts\/test\/vm-hosts\.test\.ts$/,
  /^packages\/operators\/src\/host\//,
  /^packages\/catalog\/test\/(.*\.e2e|router-host)\.test\.ts$/,
  /^packages\/plugins\/test\//,
  /^packages\/engine\/test\/(crash|enqueue-outage)\.test\.ts$/,
  /^packages\/queue\/src\/redis-policy\.test\.ts$/,
  /^packages\/engine\/src\/runtime\/worker-watchdog\.test\.ts$/,
  /^bench\//,
];

function split(files, root) {
  const serial = [];
  const beside = [];
  const after = [];
  for (const f of files) {
    const rel = relative(root, f);
    (AFTER.some((re) => re.test(rel)) ? after : SERIAL.some((re) => re.test(rel)) ? serial : beside).push(f);
  }
  return { serial, beside, after };
}

module.exports = { SERIAL, AFTER, split };

if (require.main === module) {
  const [serialOut, besideOut, afterOut] = process.argv.slice(2);
  if (!serialOut || !besideOut || !afterOut) {
    console.error("usage: jest --listTests --json | node scripts/lib/test-groups.cjs SERIAL_FILE BESIDE_FILE AFTER_FILE");
    process.exit(2);
  }
  const files = JSON.parse(readFileSync(0, "utf8"));
  const { serial, beside, after } = split(files, process.cwd());
  const lines = (list) => list.map((f) => `${f}\n`).join("");
  writeFileSync(serialOut, lines(serial));
  writeFileSync(besideOut, lines(beside));
  writeFileSync(afterOut, lines(after));
  console.log(`${serial.length} test files one at a time, ${beside.length} beside them, then ${after.length} one at a time after those`);
}
