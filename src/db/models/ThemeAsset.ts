import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { Theme } from './Theme';

/** An uploaded file of one theme version, kept in the database so every instance can serve it. */
export class ThemeAsset extends Model<InferAttributes<ThemeAsset>, InferCreationAttributes<ThemeAsset>> {
  declare id: CreationOptional<number>;
  declare themeId: ForeignKey<Theme['id']>;
  declare name: string;
  declare contentType: string;
  declare size: number;
  declare sha256: string;
  declare data: Buffer;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        name: { type: DataTypes.STRING(255), allowNull: false },
        contentType: { type: DataTypes.STRING(100), allowNull: false },
        size: { type: DataTypes.INTEGER, allowNull: false },
        sha256: { type: DataTypes.STRING(64), allowNull: false },
        data: { type: DataTypes.BLOB, allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'theme_assets', underscored: true },
    );
  }
}
