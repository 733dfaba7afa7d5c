/** Task dependency graph helpers over `task_id -> depends_on`. */

/** One dependency cycle as a closed path (a → b → a), or undefined when the graph is acyclic. */
export function findCycle(deps: ReadonlyMap<string, readonly string[]>): string[] | undefined {
  const state = new Map<string, 1 | 2>(); // 1 = on the current path, 2 = done
  const stack: string[] = [];
  // Iterative DFS: a long chain of tasks must not overflow the call stack.
  for (const root of deps.keys()) {
    if (state.has(root)) continue;
    const frames: { node: string; next: number }[] = [{ node: root, next: 0 }];
    state.set(root, 1);
    stack.push(root);
    while (frames.length) {
      const frame = frames[frames.length - 1]!;
      const children = deps.get(frame.node) ?? [];
      if (frame.next >= children.length) {
        state.set(frame.node, 2);
        stack.pop();
        frames.pop();
        continue;
      }
      const child = children[frame.next++]!;
      if (!deps.has(child)) continue;
      const s = state.get(child);
      if (s === 1) return [...stack.slice(stack.indexOf(child)), child];
      if (s === undefined) {
        state.set(child, 1);
        stack.push(child);
        frames.push({ node: child, next: 0 });
      }
    }
  }
  return undefined;
}

/** Every task each task depends on, directly or indirectly (safe on cyclic graphs). */
export function upstreamClosure(deps: ReadonlyMap<string, readonly string[]>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const task of deps.keys()) {
    const seen = new Set<string>();
    const todo = [...(deps.get(task) ?? [])];
    while (todo.length) {
      const t = todo.pop()!;
      if (seen.has(t) || !deps.has(t)) continue;
      seen.add(t);
      todo.push(...(deps.get(t) ?? []));
    }
    seen.delete(task);
    out.set(task, seen);
  }
  return out;
}
