import Joi from 'joi';
import { pageQuery } from '../http/paging';

// Ids, versions and names are looked up as given: one that cannot exist is simply not found (404).
const id = Joi.string().min(1).max(100).required();
const version = Joi.string().min(1).max(256).required();

export const listThemesSchema = { query: Joi.object(pageQuery) };
export const themeSchema = { params: Joi.object({ id }) };
export const themeVersionsSchema = { params: Joi.object({ id }), query: Joi.object(pageQuery) };
export const themeVersionSchema = { params: Joi.object({ id, version }) };
export const themeAssetSchema = { params: Joi.object({ id, version, name: Joi.string().min(1).max(200).required() }) };
