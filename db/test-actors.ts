// Kept so branches written before test-support/ keep compiling until they merge; new tests import "@/test-support".
export { call, codeOf, errorOf, grant, makeActor } from "@/test-support";
