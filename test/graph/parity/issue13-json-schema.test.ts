import { describeParity } from "./describe-parity.js";
import { issue13JsonSchemaPrograms } from "./programs/issue13-json-schema.js";

describeParity("issue 13 zod JSON schemas", issue13JsonSchemaPrograms);
