// What the page-world scripts leave each other on window, for as long as it takes to pick it up
// (page/inject.js deletes both): tsc's view of them, not a runtime file.
type GasolineSerialize = (v: unknown, limits: object) => { json: string, cut: boolean };
interface Window {
  __gasolineInject?: any;
  /** page/serialize.js's: with no key, the serialiser itself. */
  __gasolineSerializer?: (key: string | null, max?: number) => any;
}
