// Stagehand 3's rarer page, context and locator methods (page.snapshot(), context.clipboard, the
// frame registry, WebMCP, ...), installed on the driver's classes by the main entry and nowhere
// else. Why not in the classes themselves: tendril/extension carries the driver and has a size budget
// (220 kB, test/extension.test.ts) that the common Stagehand surface already fills; these methods are
// for programs written against Stagehand, which import `tendril`, not `tendril/extension`.
//
// Each extra lives in a module of its own under src/stagehand/ that
//  - declares its methods on the class it extends with a module augmentation
//    (`declare module '../driver/page.js' { interface Page { snapshot(...): ... } }`), so the
//    types of `tendril` show them and those of `tendril/extension` do not, and
//  - assigns them to the prototype (`Page.prototype.snapshot = function (...) { ... }`) when loaded,
// and is imported below. src/index.ts loads this file; src/extension.ts must not (a test checks).
export {};

