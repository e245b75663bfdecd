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
import type { Theme } from './Theme';
import type { User } from './User';

/** A theme in a user's dice box, pinned to one version (`themeId`) until the user upgrades it. */
export class DiceBoxItem extends Model<InferAttributes<DiceBoxItem>, InferCreationAttributes<DiceBoxItem>> {
  declare id: CreationOptional<number>;
  declare userId: ForeignKey<User['id']>;
  declare themeSlug: string;
  declare themeId: ForeignKey<Theme['id']>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  declare theme?: NonAttribute<Theme>;

  static initModel(sequelize: Sequelize) {
    this.init(
      {
        id: { type: DataTypes.INTEGER, primaryKey: true, autoIncrement: true },
        themeSlug: { type: DataTypes.STRING(100), allowNull: false },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'dice_box_items', underscored: true },
    );
  }
}
