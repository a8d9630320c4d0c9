// The AI SDK prints every call warning; the tests assert on the warnings they care about instead.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;
