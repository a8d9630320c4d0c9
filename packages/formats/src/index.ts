export { fromAISDK } from './ai-sdk/from-ai-sdk.js';
export { aiSdkMessagesSchema } from './ai-sdk/inbound-schema.js';
export type { ToAISDKOptions } from './ai-sdk/to-ai-sdk.js';
export { toAISDK, toAISDKOptionsSchema } from './ai-sdk/to-ai-sdk.js';
export type {
  AISDKAssistantMessage,
  AISDKFilePart,
  AISDKImagePart,
  AISDKModelMessage,
  AISDKProviderOptions,
  AISDKReasoningPart,
  AISDKSystemMessage,
  AISDKTextPart,
  AISDKToolCallPart,
  AISDKToolMessage,
  AISDKToolResultOutput,
  AISDKToolResultPart,
  AISDKUserMessage,
} from './ai-sdk/wire-types.js';
export { fromAISDKPrompt } from './ai-sdk-prompt/from-ai-sdk-prompt.js';
export { aiSdkPromptSchema } from './ai-sdk-prompt/inbound-schema.js';
export { OPAQUE_PART_KEY, opaqueOriginal } from './ai-sdk-prompt/opaque-part.js';
export type { ToAISDKPromptOptions } from './ai-sdk-prompt/to-ai-sdk-prompt.js';
export { toAISDKPrompt, toAISDKPromptOptionsSchema } from './ai-sdk-prompt/to-ai-sdk-prompt.js';
export type {
  AISDKPrompt,
  AISDKPromptAssistantMessage,
  AISDKPromptData,
  AISDKPromptFilePart,
  AISDKPromptMessage,
  AISDKPromptProviderOptions,
  AISDKPromptReasoningPart,
  AISDKPromptSystemMessage,
  AISDKPromptTextPart,
  AISDKPromptToolCallPart,
  AISDKPromptToolContentPart,
  AISDKPromptToolMessage,
  AISDKPromptToolResultOutput,
  AISDKPromptToolResultPart,
  AISDKPromptUserMessage,
} from './ai-sdk-prompt/wire-types.js';
export { fromAnthropic } from './anthropic/from-anthropic.js';
export { anthropicPromptSchema } from './anthropic/inbound-schema.js';
export type { ToAnthropicOptions } from './anthropic/to-anthropic.js';
export { toAnthropic, toAnthropicOptionsSchema } from './anthropic/to-anthropic.js';
export type {
  AnthropicCacheControl,
  AnthropicCompactionBlock,
  AnthropicContentBlock,
  AnthropicDocumentBlock,
  AnthropicImageBlock,
  AnthropicImageMediaType,
  AnthropicMessageParam,
  AnthropicPrompt,
  AnthropicRedactedThinkingBlock,
  AnthropicTextBlock,
  AnthropicThinkingBlock,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
} from './anthropic/wire-types.js';
export type { FromOpenAIChatOptions } from './openai-chat/from-openai-chat.js';
export { fromOpenAIChat, fromOpenAIChatOptionsSchema } from './openai-chat/from-openai-chat.js';
export { openAIChatMessagesSchema } from './openai-chat/inbound-schema.js';
export type { ToOpenAIChatOptions } from './openai-chat/to-openai-chat.js';
export { toOpenAIChat, toOpenAIChatOptionsSchema } from './openai-chat/to-openai-chat.js';
export type {
  OpenAIChatAssistantMessage,
  OpenAIChatAudioPart,
  OpenAIChatFilePart,
  OpenAIChatImagePart,
  OpenAIChatMessage,
  OpenAIChatRefusalPart,
  OpenAIChatSystemMessage,
  OpenAIChatTextPart,
  OpenAIChatToolCall,
  OpenAIChatToolMessage,
  OpenAIChatUserMessage,
} from './openai-chat/wire-types.js';
export type { ConversionLoss, ConversionLossHandler } from './shared.js';
