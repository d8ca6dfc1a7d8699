// What a wrapper of an AI SDK language model (meteredModel.ts, tracedModel.ts) passes on of the
// model it wraps, unchanged: the AI SDK reads these to pick its protocol and the URLs it may send.

export interface WrappedModel {
  specificationVersion: string;
  provider: string;
  modelId: string;
  supportedUrls: unknown;
}

/** `inner`'s identity with `methods` (its doGenerate and doStream, wrapped) in place of its own. */
export function wrapModel<Methods extends object>(inner: WrappedModel, methods: Methods): WrappedModel & Methods {
  return {
    specificationVersion: inner.specificationVersion,
    provider: inner.provider,
    modelId: inner.modelId,
    // A getter, as some providers compute it.
    get supportedUrls() {
      return inner.supportedUrls;
    },
    ...methods,
  };
}
