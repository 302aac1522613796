// The nine tools, in the order tools/list shows them. Each is defined once, in its own file.
import { deleteObject } from "./delete-object";
import { getObject } from "./get-object";
import { hostFile } from "./host-file";
import { listObjects } from "./list-objects";
import { objectAction } from "./object-action";
import { objectSchema } from "./object-schema";
import { providerAbout } from "./provider-about";
import { searchObjects } from "./search-objects";
import { upsertObject } from "./upsert-object";

export const tools = [providerAbout, objectSchema, listObjects, searchObjects, getObject, objectAction, upsertObject, hostFile, deleteObject] as const;
