#!/usr/bin/env node
// Split the suite's test files (jest --listTests --json on stdin) into two groups, written one path
// per line to the files named by argv[2] (serial) and argv[3] (beside):
// - serial: files that boot VMs under software emulation, run Docker or the HA/outage fault
//   stacks, or time SSH and Ansible: they run one at a time at normal priority, as the whole suite
//   did before, because a TCG guest misses deadlines when a second heavy file loads both cores;
// - beside: every other file (Postgres, Redis, in-process services, Chromium): they run in a second
//   jest process at a lower CPU priority while the serial group waits on its guests.
// A file whose path is new falls in "beside" unless a pattern below names it, so a new VM test
// must either live under one of these folders or be added here.
"use strict";
const { readFileSync, writeFileSync } = require("node:fs");
const { relative } = require("node:path");

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
  for (const f of files) (SERIAL.some((re) => re.test(relative(root, f))) ? serial : beside).push(f);
  return { serial, beside };
}

module.exports = { SERIAL, split };

if (require.main === module) {
  const [serialOut, besideOut] = process.argv.slice(2);
  if (!serialOut || !besideOut) {
    console.error("usage: jest --listTests --json | node scripts/lib/test-groups.cjs SERIAL_FILE BESIDE_FILE");
    process.exit(2);
  }
  const files = JSON.parse(readFileSync(0, "utf8"));
  const { serial, beside } = split(files, process.cwd());
  writeFileSync(serialOut, serial.map((f) => `${f}\n`).join(""));
  writeFileSync(besideOut, beside.map((f) => `${f}\n`).join(""));
  console.log(`${serial.length} test files one at a time, ${beside.length} beside them`);
}
