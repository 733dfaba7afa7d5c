import type { RouterCatalogEntry } from "@svc/assistant";
import { silentLogger } from "@svc/logger";
import { createFlowRouter } from "./flow-router";

const entry = (dag_id: string, description: string, examples: string[]): RouterCatalogEntry => ({ dag_id, description, tags: [], examples, params: {}, required_params: [] });

test("the offline router follows the catalogue it is given: a changed catalogue is routed by its new entries, the same one as before", async () => {
  const router = createFlowRouter({ name: "offline", timeoutMs: 1000, useLocalModel: false }, silentLogger());
  const widgets = [entry("rotate_widgets", "Rotate the widgets of the fleet", ["rotate the widgets"])];
  const gears = [entry("spin_gears", "Spin the gears of the fleet", ["spin the gears"])];
  expect((await router.route("rotate the widgets", widgets)).dag_id).toBe("rotate_widgets");
  expect((await router.route("rotate the widgets", [...widgets])).dag_id).toBe("rotate_widgets");
  expect((await router.route("spin the gears", gears)).dag_id).toBe("spin_gears");
  expect((await router.route("rotate the widgets", gears)).dag_id).not.toBe("rotate_widgets");
  // An entry changed in place of the same DAG id is a new entry object: routed by its new words.
  const renamed = [entry("rotate_widgets", "Polish the lenses of the fleet", ["polish the lenses"])];
  expect((await router.route("polish the lenses", renamed)).dag_id).toBe("rotate_widgets");
  expect((await router.route("polish the lenses", widgets)).dag_id).toBeNull();
});
