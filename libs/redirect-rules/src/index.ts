export {
  CONDITION_KINDS,
  DEVICES,
  NO_ROUTING,
  OPERATING_SYSTEMS,
  ROUTING_LIMITS,
  queryConditionField,
  ruleField,
  rulesField,
  variantField,
  variantsField,
  whenField,
  type Condition,
  type ConditionKind,
  type Device,
  type LinkRouting,
  type LinkRule,
  type OperatingSystem,
  type Variant,
} from '@shortlink/events';
export { RULES_REJECTION, VARIANTS_REJECTION, type Rejection } from './routing-errors';
export { validateRouting, type DestinationCheck, type RoutingOutcome } from './routing-validation';
export {
  chooseDestination,
  compileRouting,
  CompiledRouting,
  type Choice,
  type CompileOptions,
  type Visit,
} from './compiled-routing';
export { classifyAgent, DEVICE_BIT, OS_BIT } from './user-agent-class';
export { languageCode, preferredLanguage } from './preferred-language';
export { queryParameter } from './query-parameter';
export { variantBucket, variantSeed } from './variant-bucket';
