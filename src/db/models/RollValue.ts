import { DataTypes, Model, type CreationOptional, type ForeignKey, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { Roll } from './Roll';

export class RollValue extends Model<InferAttributes<RollValue>, InferCreationAttributes<RollValue>> {
  declare id: CreationOptional<number>;
  declare uuid: string;
  declare rollId: ForeignKey<Roll['id']>;
  declare position: number;
  /** Index of the requested die this value came from (rerolls and explosions share it). */
  declare dieIndex: number;
  declare type: string;
  declare theme: string;
  declare value: number | null;
  declare valueToDisplay: unknown;
  declare numericValue: number | null;
  declare origin: CreationOptional<string>;
  declare label: string | null;
  declare meta: unknown;
  declare isHidden: CreationOptional<boolean>;
  declare isUserValue: CreationOptional<boolean>;
  declare isVisible: CreationOptional<boolean>;
  declare isCleared: CreationOptional<boolean>;
  declare isDropped: CreationOptional<boolean>;
  declare isSuccess: CreationOptional<boolean>;
  declare isFailure: CreationOptional<boolean>;
  declare isCompounded: CreationOptional<boolean>;
  declare isPenetrated: CreationOptional<boolean>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        uuid: { type: DataTypes.UUID, allowNull: false },
        position: { type: DataTypes.INTEGER, allowNull: false },
        dieIndex: { type: DataTypes.INTEGER, allowNull: false },
        type: { type: DataTypes.STRING(64), allowNull: false },
        theme: { type: DataTypes.STRING(100), allowNull: false },
        value: { type: DataTypes.INTEGER, allowNull: true },
        valueToDisplay: { type: DataTypes.JSON, allowNull: true },
        numericValue: { type: DataTypes.DOUBLE, allowNull: true },
        origin: { type: DataTypes.STRING(16), allowNull: false, defaultValue: 'roll' },
        label: { type: DataTypes.STRING(255), allowNull: true },
        meta: { type: DataTypes.JSON, allowNull: true },
        isHidden: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isUserValue: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isVisible: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: true },
        isCleared: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isDropped: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isSuccess: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isFailure: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isCompounded: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        isPenetrated: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'roll_values', underscored: true },
    );
  }
}
