import Joi from 'joi';
import { pageQuery } from '../http/paging';

// Ids, versions and names are looked up as given: one that cannot exist is simply not found (404).
const id = Joi.string().min(1).max(100).required();
const version = Joi.string().min(1).max(256).required();

export const listQuery = Joi.object(pageQuery);
export const idParams = Joi.object({ id });
export const versionParams = Joi.object({ id, version });
export const assetParams = Joi.object({ id, version, name: Joi.string().min(1).max(200).required() });
/** The keyless file URL: a wrong hash is a 404 like a missing file (read.ts getPublicAssetMeta). */
export const publicAssetParams = Joi.object({ id, version, sha256: Joi.string().min(1).max(64).required(), name: Joi.string().min(1).max(200).required() });
export const previewQuery = Joi.object({ share: Joi.string().min(1).max(64) });
