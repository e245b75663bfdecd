import {
  DataTypes,
  Model,
  type CreationOptional,
  type ForeignKey,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { User } from './User';
import type { ThemeAsset } from './ThemeAsset';

/** One row per version of a theme; `slug` is the theme's public `id`. */
export class Theme extends Model<InferAttributes<Theme>, InferCreationAttributes<Theme>> {
  declare id: CreationOptional<number>;
  declare slug: string;
  declare version: string;
  declare userId: ForeignKey<User['id']>;
  declare name: string;
  declare description: CreationOptional<string>;
  declare apiVersion: CreationOptional<string>;
  /** The resolved manifest (after `extend`): label, available_dice, meshes, sizes, physics, sounds, uniforms, values, textures. */
  declare manifest: Record<string, unknown>;
  declare fragShader: string | null;
  declare vertShader: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare user?: NonAttribute<User>;
  declare assets?: NonAttribute<ThemeAsset[]>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        slug: { type: DataTypes.STRING(100), allowNull: false },
        version: { type: DataTypes.STRING(256), allowNull: false },
        name: { type: DataTypes.STRING(255), allowNull: false },
        description: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        apiVersion: { type: DataTypes.STRING(16), allowNull: false, defaultValue: '1.0' },
        manifest: { type: DataTypes.JSON, allowNull: false },
        fragShader: { type: DataTypes.TEXT, allowNull: true },
        vertShader: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'themes', underscored: true },
    );
  }
}
